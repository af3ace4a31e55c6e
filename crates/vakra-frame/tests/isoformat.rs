//! `datetime.fromisoformat` as CPython 3.11.7 accepts it, through the date-part transforms:
//! accepted strings become their year, month or day; rejected ones stay unchanged.

use crate::common;

use common::{out_table, s, table};
use vakra_frame::{Cell, transform_data_to_datetime_part};

/// Year, month and day.
type Date = (i64, i64, i64);

/// (text, the date CPython 3.11.7 parses it as, or `None` when it raises)
const CASES: &[(&str, Option<Date>)] = &[
    ("2014-03-05", Some((2014, 3, 5))),
    ("20140305", Some((2014, 3, 5))),
    ("2014-03-05T10:00:00", Some((2014, 3, 5))),
    ("2014-03-05 10:00:00", Some((2014, 3, 5))),
    ("2014-03-05 10:00:00+02:00", Some((2014, 3, 5))),
    ("2014-03", None),
    ("not a date", None),
    ("21-Dec-37", None),
    ("2014-W10", Some((2014, 3, 3))),
    ("2014W10", Some((2014, 3, 3))),
    ("2014-W10-3", Some((2014, 3, 5))),
    ("2014W103", Some((2014, 3, 5))),
    ("2020-W53-7", Some((2021, 1, 3))),
    ("2021-W53", None),
    ("2014-02-29", None),
    ("2016-02-29", Some((2016, 2, 29))),
    ("0000-01-01", None),
    ("9999-12-31", Some((9999, 12, 31))),
    ("2014-03-05T24:00", None),
    ("2014-03-05T23:59:60", None),
    ("2014-03-05T10:00:00.123456789", Some((2014, 3, 5))),
    ("2014-03-05T10:00:00,5", Some((2014, 3, 5))),
    ("2014-03-05T10:00:00.", None),
    ("2014-03-05T10:00Z", Some((2014, 3, 5))),
    ("2014-03-05T10:00Zx", None),
    ("2014-03-05T10+0530", Some((2014, 3, 5))),
    ("2014-03-05T10:00+24:00", None),
    ("2014-03-05T10:00+23:59:59.999999", Some((2014, 3, 5))),
    ("2014-03-05T10:00-00:00:00.5", Some((2014, 3, 5))),
    ("2014-03-05T10:00+05:99", Some((2014, 3, 5))),
    ("2014-03-05é10:00", Some((2014, 3, 5))),
    ("2014-03-05😀10:00", Some((2014, 3, 5))),
    ("2014-03-05x10:00", Some((2014, 3, 5))),
    ("2014-03-0510:00", None),
    ("2014-03-05T1000", Some((2014, 3, 5))),
    ("2014-03-05T100000", Some((2014, 3, 5))),
    ("2014-03-05T10:0", None),
    ("2014-03-05T", None),
    ("2014-03-05 ", None),
    ("20140305T1000", Some((2014, 3, 5))),
    ("2014-13-01", None),
    ("2014-00-10", None),
    ("2014-W00-1", None),
    ("2014-W10-0", None),
    ("2014-W10-8", None),
    ("2015W537", Some((2016, 1, 3))),
    ("2004-W53-7", Some((2005, 1, 2))),
    ("9999-W52-7", None),
    ("0001-W01-1", Some((1, 1, 1))),
    ("12345678", None),
    ("2014-3-5", None),
    ("2014_03_05", None),
    ("２０１４-03-05", None),
    ("2014-03-05T10:00:00:5", Some((2014, 3, 5))),
];

#[test]
fn accepts_what_cpython_accepts() {
    let texts: Vec<Cell> = CASES.iter().map(|(t, _)| s(t)).collect();
    let data = table(&[("d", texts.clone())]);
    for (pattern, part) in [("%Y", 0), ("%m", 1), ("%d", 2)] {
        let result = out_table(transform_data_to_datetime_part(&data, "d", pattern));
        let column = result.column("d").expect("column");
        for ((text, date), got) in CASES.iter().zip(column) {
            let want = match date {
                Some(ymd) => Cell::Int([ymd.0, ymd.1, ymd.2][part]),
                None => s(text),
            };
            assert_eq!(got, &want, "{text:?} with {pattern}");
        }
    }
}

#[test]
fn other_patterns_give_none_for_dates_only() {
    let data = table(&[(
        "d",
        vec![s("2014-03-05"), s("not a date"), Cell::Int(5), Cell::None],
    )]);
    let result = out_table(transform_data_to_datetime_part(&data, "d", "%H"));
    assert_eq!(
        result.column("d").expect("column"),
        &[Cell::None, s("not a date"), Cell::Int(5), Cell::None][..]
    );
}
