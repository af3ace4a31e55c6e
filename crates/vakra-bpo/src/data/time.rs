//! Naive timestamps as nanoseconds since 1970-01-01, the representation pandas uses.

const NS_PER_SECOND: i64 = 1_000_000_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn number(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Parses `YYYY-MM-DD`, optionally followed by ` HH:MM:SS` or `THH:MM:SS` and a fraction of up
/// to nine digits, into nanoseconds since the epoch.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let (date, time) = match text.find([' ', 'T']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let mut parts = date.split('-');
    let (year, month, day) = (
        number(parts.next()?)?,
        number(parts.next()?)?,
        number(parts.next()?)?,
    );
    if parts.next().is_some()
        || !(1..=9999).contains(&year)
        || !(1..=12).contains(&month)
        || !(1..=days_in_month(year, month)).contains(&day)
    {
        return None;
    }
    let mut seconds = days_from_civil(year, month, day) * 86_400;
    let mut nanos = 0i64;
    if let Some(time) = time {
        let (clock, fraction) = match time.split_once('.') {
            Some((clock, fraction)) => (clock, Some(fraction)),
            None => (time, None),
        };
        let mut fields = clock.split(':');
        let (h, m, s) = (
            number(fields.next()?)?,
            number(fields.next()?)?,
            number(fields.next()?)?,
        );
        if fields.next().is_some() || h > 23 || m > 59 || s > 59 {
            return None;
        }
        seconds += h * 3600 + m * 60 + s;
        if let Some(fraction) = fraction {
            if fraction.len() > 9 {
                return None;
            }
            nanos = number(fraction)? * 10i64.pow(9 - fraction.len() as u32);
        }
    }
    seconds.checked_mul(NS_PER_SECOND)?.checked_add(nanos)
}

#[cfg(test)]
mod tests {
    use super::parse_timestamp;

    #[test]
    fn parses_pandas_style_timestamps() {
        assert_eq!(parse_timestamp("1970-01-01"), Some(0));
        assert_eq!(
            parse_timestamp("2023-12-11 07:18:25"),
            Some(1_702_279_105_000_000_000)
        );
        assert_eq!(
            parse_timestamp("2023-12-11T07:18:25.5"),
            Some(1_702_279_105_500_000_000)
        );
        assert_eq!(parse_timestamp("1969-12-31"), Some(-86_400_000_000_000));
    }

    #[test]
    fn rejects_invalid_dates() {
        for text in [
            "",
            "2023-02-30",
            "2023-13-01",
            "2023-01-01 24:00:00",
            "x",
            "2023-1",
        ] {
            assert_eq!(parse_timestamp(text), None, "{text}");
        }
    }
}
