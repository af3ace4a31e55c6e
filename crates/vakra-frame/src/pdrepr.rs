//! `repr` of a pandas 3 `StringArray` (`Series.values` of a `str` column), which the reference
//! shows in its "Did not find table" error: pandas' `format_object_summary` for an 80-column
//! display, values quoted by `pprint_thing`.

const WIDTH: usize = 80;
/// `display.max_seq_items`: longer arrays show their first and last ten values.
const MAX_SEQ_ITEMS: usize = 100;
const LINE_START: &str = "\n ";

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// `pprint_thing(value, escape_chars=("\t", "\r", "\n"), quote_strings=True)`.
fn quoted(value: &str) -> String {
    let escaped = value
        .replace('\t', "\\t")
        .replace('\r', "\\r")
        .replace('\n', "\\n");
    format!("'{escaped}'")
}

/// Appends `value` to `line`, first moving `line` into `summary` when the two would reach
/// `width`.
fn extend(summary: &mut String, line: &mut String, value: &str, width: usize) {
    if chars(line.trim_end()) + chars(value.trim_end()) >= width {
        summary.push_str(line.trim_end());
        *line = LINE_START.to_owned();
    }
    line.push_str(value);
}

/// `format_object_summary(values, formatter, indent_for_name=False)`, trailing `", \n"`
/// stripped.
fn summary(values: &[String]) -> String {
    let n = values.len();
    let f: Vec<String> = match n {
        0..=2 => values.iter().map(|v| quoted(v)).collect(),
        _ => Vec::new(),
    };
    match n {
        0 => return "[]".to_owned(),
        1 => return format!("[{}]", f[0]),
        2 => return format!("[{}, {}]", f[0], f[1]),
        _ => {}
    }
    let truncated = n > MAX_SEQ_ITEMS;
    let (mut head, mut tail): (Vec<String>, Vec<String>) = if truncated {
        let k = (MAX_SEQ_ITEMS / 2).min(10);
        (
            values[..k].iter().map(|v| quoted(v)).collect(),
            values[n - k..].iter().map(|v| quoted(v)).collect(),
        )
    } else {
        (Vec::new(), values.iter().map(|v| quoted(v)).collect())
    };
    let joined = |v: &[String]| chars(&v.join(", "));
    if truncated || !(joined(&head) < WIDTH && joined(&tail) < WIDTH) {
        let longest = head
            .iter()
            .chain(&tail)
            .map(|v| chars(v))
            .max()
            .unwrap_or(0);
        for v in head.iter_mut().chain(tail.iter_mut()) {
            *v = format!("{}{v}", " ".repeat(longest - chars(v)));
        }
    }
    let mut summary = String::new();
    let mut line = LINE_START.to_owned();
    for v in &head {
        extend(&mut summary, &mut line, &format!("{v}, "), WIDTH);
    }
    if truncated {
        summary.push_str(line.trim_end());
        summary.push_str(LINE_START);
        summary.push_str("...");
        line = LINE_START.to_owned();
    }
    let (last, rest) = tail.split_last().expect("more than two values");
    for v in rest {
        extend(&mut summary, &mut line, &format!("{v}, "), WIDTH);
    }
    extend(&mut summary, &mut line, last, WIDTH - 2);
    summary.push_str(&line);
    summary.push(']');
    format!("[{}", &summary[LINE_START.len()..])
}

/// `repr(StringArray(values))` with pandas 3's `str` dtype.
pub(crate) fn string_array_repr(values: &[String]) -> String {
    format!(
        "<StringArray>\n{}\nLength: {}, dtype: str",
        summary(values),
        values.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("table_number_{i}")).collect()
    }

    #[test]
    fn short_arrays_stay_on_one_line() {
        assert_eq!(
            string_array_repr(&names(3)),
            "<StringArray>\n['table_number_0', 'table_number_1', 'table_number_2']\nLength: 3, dtype: str"
        );
        assert_eq!(
            string_array_repr(&["a\tb".to_owned()]),
            "<StringArray>\n['a\\tb']\nLength: 1, dtype: str"
        );
        assert_eq!(
            string_array_repr(&["é".to_owned(), "it's".to_owned()]),
            "<StringArray>\n['é', 'it's']\nLength: 2, dtype: str"
        );
    }

    /// Texts printed by pandas 3.1.1 for the same names.
    #[test]
    fn long_arrays_wrap_at_80_columns_right_justified() {
        assert_eq!(
            string_array_repr(&names(12)),
            "<StringArray>\n[ 'table_number_0',  'table_number_1',  'table_number_2',  'table_number_3',\n  'table_number_4',  'table_number_5',  'table_number_6',  'table_number_7',\n  'table_number_8',  'table_number_9', 'table_number_10', 'table_number_11']\nLength: 12, dtype: str"
        );
    }

    #[test]
    fn more_than_a_hundred_show_the_ends() {
        let text = string_array_repr(&names(150));
        assert!(
            text.starts_with("<StringArray>\n[  'table_number_0',"),
            "{text}"
        );
        assert!(text.contains("\n ...\n"), "{text}");
        assert!(
            text.ends_with("'table_number_149']\nLength: 150, dtype: str"),
            "{text}"
        );
    }
}
