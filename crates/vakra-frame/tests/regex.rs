//! Python `re` semantics of `contains` (pattern errors with their positions, matches with
//! `re.IGNORECASE`) and of `like`. Expected values were produced with CPython 3.11.7.

use crate::common;

use common::{i, out_table, s, table};
use vakra_frame::Pandas;
use vakra_frame::{Cell, FilterCondition, filter_data};

const TEXTS: &[&str] = &[
    "abc",
    "ABC",
    "a.b",
    "axb",
    "A(B)",
    "héllo",
    "HÉLLO",
    "x\ny",
    "abc\n",
    "",
    "Kelvin \u{212a}",
    "straße",
    "2014-03-05",
    "a1_b2",
];

/// The rows of `TEXTS` a filter keeps, or its error text.
fn matching(pattern: &str, condition: FilterCondition) -> Result<Vec<i64>, String> {
    let data = table(&[
        ("w", TEXTS.iter().map(|t| s(t)).collect()),
        ("i", (0..TEXTS.len() as i64).map(i).collect()),
    ]);
    let result = filter_data(&data, "w", &s(pattern), condition, Pandas::V2)
        .map_err(|e| e.message().to_owned())?;
    Ok(out_table(Ok(result))
        .column("i")
        .expect("index column")
        .iter()
        .map(|c| match c {
            Cell::Int(v) => *v,
            other => panic!("{other:?}"),
        })
        .collect())
}

/// (pattern, rows that match or Python's `re.error` text)
const CONTAINS: &[(&str, Result<&[i64], &str>)] = &[
    ("(", Err("missing ), unterminated subpattern at position 0")),
    (")", Err("unbalanced parenthesis at position 0")),
    ("a)", Err("unbalanced parenthesis at position 1")),
    ("*a", Err("nothing to repeat at position 0")),
    ("a**", Err("multiple repeat at position 2")),
    ("+", Err("nothing to repeat at position 0")),
    ("?", Err("nothing to repeat at position 0")),
    (
        "a{2,1}",
        Err("min repeat greater than max repeat at position 2"),
    ),
    ("[a", Err("unterminated character set at position 0")),
    ("[z-a]", Err("bad character range z-a at position 1")),
    ("\\", Err("bad escape (end of pattern) at position 0")),
    ("a\\", Err("bad escape (end of pattern) at position 1")),
    (
        "(?P<1a>x)",
        Err("bad character in group name '1a' at position 4"),
    ),
    (
        "(?P<n>a)(?P<n>b)",
        Err("redefinition of group name 'n' as group 2; was group 1 at position 12"),
    ),
    ("(?P=x)", Err("unknown group name 'x' at position 4")),
    ("(a)\\2", Err("invalid group reference 2 at position 4")),
    ("\\8", Err("invalid group reference 8 at position 1")),
    ("(?<=a+)b", Err("look-behind requires fixed-width pattern")),
    (
        "(?<!a|bc)d",
        Err("look-behind requires fixed-width pattern"),
    ),
    ("(?z)", Err("unknown extension ?z at position 1")),
    (
        "a(?i)b",
        Err("global flags not at the start of the expression at position 1"),
    ),
    ("(?i", Err("missing -, : or ) at position 3")),
    (
        "(?L)a",
        Err("bad inline flags: cannot use 'L' flag with a str pattern at position 3"),
    ),
    (
        "(?au)x",
        Err("bad inline flags: flags 'a', 'u' and 'L' are incompatible at position 4"),
    ),
    (
        "(?#abc",
        Err("missing ), unterminated comment at position 0"),
    ),
    ("x{4294967295}", Err("the repetition number is too large")),
    ("\\q", Err("bad escape \\q at position 0")),
    ("[\\A]", Err("bad escape \\A at position 1")),
    ("\\x4", Err("incomplete escape \\x4 at position 0")),
    ("\\u12", Err("incomplete escape \\u12 at position 0")),
    ("\\U00110000", Err("bad escape \\U00110000 at position 0")),
    (
        "\\777",
        Err("octal escape value \\777 outside of range 0-0o377 at position 0"),
    ),
    (
        "[\\777]",
        Err("octal escape value \\777 outside of range 0-0o377 at position 1"),
    ),
    ("(?(2)a|b)", Err("invalid group reference 2 at position 3")),
    ("(?(0)a)", Err("bad group number at position 3")),
    ("(?(x)a)", Err("unknown group name 'x' at position 3")),
    (
        "(?(-1)a)",
        Err("bad character in group name '-1' at position 3"),
    ),
    (
        "(?(1)a|b|c)",
        Err("conditional backref with more than two branches at position 8"),
    ),
    (
        "(a)(?(1)x",
        Err("missing ), unterminated subpattern at position 3"),
    ),
    (
        "a\n(",
        Err("missing ), unterminated subpattern at position 2 (line 2, column 1)"),
    ),
    (
        "ab\ncd)",
        Err("unbalanced parenthesis at position 5 (line 2, column 3)"),
    ),
    ("(?P", Err("unexpected end of pattern at position 3")),
    ("(?P>x)", Err("unknown extension ?P> at position 1")),
    ("(?<x", Err("unknown extension ?<x at position 1")),
    ("(?<", Err("unexpected end of pattern at position 3")),
    ("(?", Err("unexpected end of pattern at position 2")),
    (
        "(?i:",
        Err("missing ), unterminated subpattern at position 0"),
    ),
    ("(?-", Err("missing flag at position 3")),
    ("(?-:a)", Err("missing flag at position 3")),
    (
        "(?i-i:a)",
        Err("bad inline flags: flag turned on and off at position 5"),
    ),
    (
        "(?a-a:x)",
        Err("bad inline flags: cannot turn off flags 'a', 'u' and 'L' at position 5"),
    ),
    (
        "(?x) ( ",
        Err("missing ), unterminated subpattern at position 5"),
    ),
    ("[]", Err("unterminated character set at position 0")),
    ("a{,", Ok(&[])),
    ("{1,2}", Err("nothing to repeat at position 0")),
    ("C++", Ok(&[0, 1, 8])),
    ("$5 (approx)", Ok(&[])),
    ("abc", Ok(&[0, 1, 8])),
    ("A.B", Ok(&[2, 3, 4])),
    ("(B)", Ok(&[0, 1, 2, 3, 4, 8, 13])),
    ("^a", Ok(&[0, 1, 2, 3, 4, 8, 13])),
    ("c$", Ok(&[0, 1, 8])),
    ("b$", Ok(&[2, 3])),
    ("\\d+", Ok(&[12, 13])),
    ("\\D", Ok(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13])),
    ("\\w+\\s", Ok(&[7, 8, 10])),
    ("\\bK", Ok(&[10])),
    ("\\B", Ok(&[0, 1, 3, 4, 5, 6, 8, 10, 11, 12, 13])),
    ("^$", Ok(&[9])),
    ("a|x", Ok(&[0, 1, 2, 3, 4, 7, 8, 11, 13])),
    ("[^a]", Ok(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13])),
    ("[a-c]{2}", Ok(&[0, 1, 8])),
    ("(?-i:abc)", Ok(&[0, 8])),
    ("(?s)x.y", Ok(&[7])),
    ("x.y", Ok(&[])),
    ("(?m)^y", Ok(&[7])),
    ("é", Ok(&[5, 6])),
    ("É", Ok(&[5, 6])),
    ("straSSe", Ok(&[])),
    ("ß", Ok(&[11])),
    ("k", Ok(&[10])),
    ("\\u00e9", Ok(&[5, 6])),
    ("\\x41", Ok(&[0, 1, 2, 3, 4, 8, 11, 13])),
    ("(a)\\1", Ok(&[])),
    ("(?P<n>b)(?P=n)", Ok(&[])),
    ("(?<=a)b", Ok(&[0, 1, 8])),
    ("(?<!x)y", Ok(&[7])),
    ("(?=b)", Ok(&[0, 1, 2, 3, 4, 8, 13])),
    ("a(?!b)", Ok(&[2, 3, 4, 11, 13])),
    ("(?>ab)", Ok(&[0, 1, 8])),
    ("ab*+c", Ok(&[0, 1, 8])),
    ("a{1,2}?b", Ok(&[0, 1, 8])),
    ("(?(1)x|y)", Err("invalid group reference 1 at position 3")),
    ("(a)?(?(1)b|c)", Ok(&[0, 1, 8])),
    ("\\Z", Ok(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])),
    ("\\Aa", Ok(&[0, 1, 2, 3, 4, 8, 13])),
    ("[\\d_]+", Ok(&[12, 13])),
    ("[^\\W\\d]", Ok(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13])),
    ("(?a)\\w+", Ok(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13])),
    ("(?x) a b c # comment", Ok(&[0, 1, 8])),
    ("[]]", Ok(&[])),
    ("[^]]", Ok(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13])),
    ("a{,2}b", Ok(&[0, 1, 2, 3, 4, 8, 13])),
    ("a{2,}", Ok(&[])),
    ("\\.", Ok(&[2])),
    ("\\(", Ok(&[4])),
    ("--", Ok(&[])),
    ("\\0", Ok(&[])),
];

#[test]
fn contains_follows_python_re() {
    for (pattern, expected) in CONTAINS {
        let expected = expected.map(<[i64]>::to_vec).map_err(str::to_owned);
        assert_eq!(
            matching(pattern, FilterCondition::Contains),
            expected,
            "pattern {pattern:?}"
        );
    }
}

#[test]
fn like_translation_quirks() {
    let like = |p| matching(p, FilterCondition::Like).expect("like never fails on strings");
    // `%` and `_` are wildcards; a literal `.` is one too; matching is case-sensitive.
    assert_eq!(like("a%"), vec![0, 2, 3, 8, 13]);
    assert_eq!(like("a.b"), vec![2, 3]);
    assert_eq!(like("A%"), vec![1, 4]);
    assert_eq!(like("_b_"), vec![0, 8]);
    // `$` also matches before a final newline, and `.` never matches a newline.
    assert_eq!(like("abc"), vec![0, 8]);
    assert_eq!(like("x%"), Vec::<i64>::new());
    assert_eq!(like("%"), vec![0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13]);
    // Other regex characters stay literal; `\%` becomes "a backslash-escaped dot, repeated".
    assert_eq!(like("A(B)"), vec![4]);
    assert_eq!(like("\\%"), vec![9]);
    assert_eq!(like("2014-0_-05"), vec![12]);
}

#[test]
fn like_needs_strings() {
    let data = table(&[("w", vec![s("a"), Cell::None, Cell::Int(3)])]);
    let err = |v: &Cell| {
        filter_data(&data, "w", v, FilterCondition::Like, Pandas::V2)
            .unwrap_err()
            .message()
            .to_owned()
    };
    assert_eq!(
        err(&s("%")),
        "expected string or bytes-like object, got 'NoneType'"
    );
    assert_eq!(
        err(&Cell::Float(1.5)),
        "'float' object has no attribute 'replace'"
    );
    assert_eq!(
        err(&Cell::None),
        "'NoneType' object has no attribute 'replace'"
    );
    let nan_ok = table(&[
        ("w", vec![s("a"), Cell::Float(f64::NAN)]),
        ("x", vec![s("b"), s("c")]),
    ]);
    assert!(filter_data(&nan_ok, "w", &s("a"), FilterCondition::Like, Pandas::V2).is_ok());
}

#[test]
fn contains_needs_a_string_pattern_and_string_column() {
    let words = table(&[("w", vec![Cell::None, s("5")])]);
    assert_eq!(
        filter_data(
            &words,
            "w",
            &Cell::Int(5),
            FilterCondition::Contains,
            Pandas::V2
        )
        .unwrap_err()
        .message(),
        "first argument must be string or compiled pattern"
    );
    let numbers = table(&[("n", vec![Cell::Int(1), Cell::Int(2)])]);
    assert_eq!(
        filter_data(
            &numbers,
            "n",
            &s("1"),
            FilterCondition::Contains,
            Pandas::V2
        )
        .unwrap_err()
        .message(),
        "Can only use .str accessor with string values!"
    );
    let bools = table(&[("b", vec![Cell::Bool(true), Cell::None])]);
    assert_eq!(
        filter_data(&bools, "b", &s("1"), FilterCondition::Contains, Pandas::V2)
            .unwrap_err()
            .message(),
        "Can only use .str accessor with string values!"
    );
}
