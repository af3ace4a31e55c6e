//! CPython 3.11's `datetime.fromisoformat` (the C implementation): which strings it accepts and
//! the date they name. The reference extracts year, month or day from whatever parses, so the
//! acceptance rules (basic and extended formats, ISO week dates, any separator character,
//! fractional seconds, `Z` and offsets, range checks) are what matter.

/// The calendar date of a string `datetime.fromisoformat` accepts, or `None` when it raises.
pub(crate) fn parse_date(text: &str) -> Option<(i32, i32, i32)> {
    // All valid strings have at least seven characters.
    if text.chars().count() < 7 {
        return None;
    }
    let bytes = text.as_bytes();
    let len = bytes.len() as isize;
    let buf = Buf(bytes);
    let separator = find_separator(&buf, len);
    let (year, month, day) = parse_date_part(&buf, separator).ok()?;
    let mut time = Time::default();
    let mut offset = None;
    if len > separator {
        // The separator may be any character: skip its whole UTF-8 sequence.
        let lead = buf.at(separator);
        let width = if lead & 0x80 == 0 {
            1
        } else {
            match lead & 0xf0 {
                0xe0 => 3,
                0xf0 => 4,
                _ => 2,
            }
        };
        let start = separator + width;
        let parsed = parse_time(&buf, start, len - start).ok()?;
        time = parsed.0;
        offset = parsed.1;
    }
    if let Some((seconds, micros)) = offset
        && seconds != 0
    {
        let total = i64::from(seconds) * 1_000_000 + i64::from(micros);
        if total.abs() >= 86_400 * 1_000_000 {
            return None;
        }
    }
    let valid = (1..=9999).contains(&year)
        && (1..=12).contains(&month)
        && day >= 1
        && day <= days_in_month(year, month)
        && (0..=23).contains(&time.hour)
        && (0..=59).contains(&time.minute)
        && (0..=59).contains(&time.second)
        && (0..=999_999).contains(&time.microsecond);
    valid.then_some((year, month, day))
}

/// The UTF-8 bytes as C sees them: a NUL after the end, and NUL again beyond (the C code never
/// reads far past the terminator because NUL is not a digit).
struct Buf<'a>(&'a [u8]);

impl Buf<'_> {
    fn at(&self, i: isize) -> u8 {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.0.get(i))
            .copied()
            .unwrap_or(0)
    }
}

fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}

/// `parse_digits`: `n` digits from `pos` accumulated into `var`, or `None` on a non-digit.
fn parse_digits(buf: &Buf<'_>, pos: isize, var: &mut i32, n: isize) -> Option<isize> {
    let mut p = pos;
    for _ in 0..n {
        let c = buf.at(p);
        if !is_digit(c) {
            return None;
        }
        *var = var.wrapping_mul(10).wrapping_add(i32::from(c - b'0'));
        p += 1;
    }
    Some(p)
}

/// `_find_isoformat_datetime_separator`: where the date ends, from the shape of characters 4
/// and 5 (a byte index; `-1` when no valid position exists).
fn find_separator(buf: &Buf<'_>, len: isize) -> isize {
    if len == 7 {
        return 7;
    }
    if buf.at(4) == b'-' {
        if buf.at(5) == b'W' {
            if len < 8 {
                return -1;
            }
            if len > 8 && buf.at(8) == b'-' {
                if len == 9 {
                    return -1;
                }
                if len > 10 && is_digit(buf.at(10)) {
                    return 8;
                }
                return 10;
            }
            return 8;
        }
        return 10;
    }
    if buf.at(4) == b'W' {
        let mut idx = 7;
        while idx < len && is_digit(buf.at(idx)) {
            idx += 1;
        }
        if idx < 9 {
            return idx;
        }
        return if idx % 2 == 0 { 7 } else { 8 };
    }
    8
}

/// `parse_isoformat_date`: `YYYY-MM-DD`, `YYYYMMDD`, and the ISO week forms `YYYY-Www[-D]`,
/// `YYYYWww[D]`.
fn parse_date_part(buf: &Buf<'_>, len: isize) -> Result<(i32, i32, i32), ()> {
    let mut year = 0;
    let mut p = parse_digits(buf, 0, &mut year, 4).ok_or(())?;
    let uses_separator = buf.at(p) == b'-';
    if uses_separator {
        p += 1;
    }
    if buf.at(p) == b'W' {
        p += 1;
        let mut week = 0;
        p = parse_digits(buf, p, &mut week, 2).ok_or(())?;
        let mut weekday = 0;
        // `len` is `size_t` in C: a separator position of -1 compares as huge.
        if len < 0 || p < len {
            if uses_separator {
                if buf.at(p) != b'-' {
                    return Err(());
                }
                p += 1;
            }
            parse_digits(buf, p, &mut weekday, 1).ok_or(())?;
        } else {
            weekday = 1;
        }
        return iso_to_ymd(year, week, weekday).ok_or(());
    }
    let mut month = 0;
    p = parse_digits(buf, p, &mut month, 2).ok_or(())?;
    if uses_separator {
        if buf.at(p) != b'-' {
            return Err(());
        }
        p += 1;
    }
    let mut day = 0;
    parse_digits(buf, p, &mut day, 2).ok_or(())?;
    Ok((year, month, day))
}

#[derive(Default)]
struct Time {
    hour: i32,
    minute: i32,
    second: i32,
    microsecond: i32,
}

/// `parse_hh_mm_ss_ff`: `HH[:MM[:SS[.ffffff]]]` or the basic form without colons; `Ok(true)`
/// when characters remain before `end`.
fn parse_hh_mm_ss_ff(buf: &Buf<'_>, start: isize, end: isize, t: &mut Time) -> Result<bool, ()> {
    let mut p = start;
    let mut has_separator = true;
    for i in 0..3 {
        let slot = match i {
            0 => &mut t.hour,
            1 => &mut t.minute,
            _ => &mut t.second,
        };
        p = parse_digits(buf, p, slot, 2).ok_or(())?;
        let c = buf.at(p);
        p += 1;
        if i == 0 {
            has_separator = c == b':';
        }
        if p >= end {
            return Ok(c != 0);
        } else if has_separator && c == b':' {
            continue;
        } else if c == b'.' || c == b',' {
            break;
        } else if !has_separator {
            p -= 1;
        } else {
            return Err(());
        }
    }
    let remaining = end - p;
    let to_parse = remaining.clamp(0, 6);
    p = parse_digits(buf, p, &mut t.microsecond, to_parse).ok_or(())?;
    const CORRECTION: [i32; 5] = [100_000, 10_000, 1_000, 100, 10];
    if (1..6).contains(&to_parse) {
        t.microsecond = t
            .microsecond
            .wrapping_mul(CORRECTION[(to_parse - 1) as usize]);
    }
    while is_digit(buf.at(p)) {
        p += 1;
    }
    Ok(buf.at(p) != 0)
}

/// `parse_isoformat_time`: the time and an optional `Z`/`±HH[:MM[:SS[.ffffff]]]` offset
/// (returned as signed seconds and microseconds).
fn parse_time(buf: &Buf<'_>, start: isize, len: isize) -> Result<(Time, Option<(i32, i32)>), ()> {
    let end = start + len;
    let mut tz = start;
    loop {
        if matches!(buf.at(tz), b'Z' | b'+' | b'-') {
            break;
        }
        tz += 1;
        if tz >= end {
            break;
        }
    }
    let mut time = Time::default();
    let rest = parse_hh_mm_ss_ff(buf, start, tz, &mut time)?;
    if tz == end {
        return if rest { Err(()) } else { Ok((time, None)) };
    }
    if buf.at(tz) == b'Z' {
        return if buf.at(tz + 1) != 0 {
            Err(())
        } else {
            Ok((time, Some((0, 0))))
        };
    }
    let sign = if buf.at(tz) == b'-' { -1 } else { 1 };
    let mut offset = Time::default();
    let rest = parse_hh_mm_ss_ff(buf, tz + 1, end, &mut offset)?;
    if rest {
        return Err(());
    }
    let seconds = offset.hour * 3600 + offset.minute * 60 + offset.second;
    Ok((time, Some((sign * seconds, sign * offset.microsecond))))
}

fn is_leap(year: i32) -> bool {
    let y = year as u32;
    y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400))
}

const DAYS_IN_MONTH: [i32; 13] = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DAYS_BEFORE_MONTH: [i32; 13] = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

fn days_in_month(year: i32, month: i32) -> i32 {
    if month == 2 && is_leap(year) {
        29
    } else {
        usize::try_from(month)
            .ok()
            .and_then(|m| DAYS_IN_MONTH.get(m))
            .copied()
            .unwrap_or(0)
    }
}

fn days_before_year(year: i32) -> i32 {
    let y = year - 1;
    y * 365 + y / 4 - y / 100 + y / 400
}

fn days_before_month(year: i32, month: i32) -> i32 {
    let before = usize::try_from(month)
        .ok()
        .and_then(|m| DAYS_BEFORE_MONTH.get(m))
        .copied()
        .unwrap_or(0);
    before + i32::from(month > 2 && is_leap(year))
}

fn ymd_to_ord(year: i32, month: i32, day: i32) -> i32 {
    days_before_year(year) + days_before_month(year, month) + day
}

fn ord_to_ymd(ordinal: i32) -> Option<(i32, i32, i32)> {
    const DI400Y: i32 = 146_097;
    const DI100Y: i32 = 36_524;
    const DI4Y: i32 = 1_461;
    let mut n = ordinal - 1;
    let n400 = n / DI400Y;
    n %= DI400Y;
    let mut year = n400 * 400 + 1;
    let n100 = n / DI100Y;
    n %= DI100Y;
    let n4 = n / DI4Y;
    n %= DI4Y;
    let n1 = n / 365;
    n %= 365;
    year += n100 * 100 + n4 * 4 + n1;
    if n1 == 4 || n100 == 4 {
        return Some((year - 1, 12, 31));
    }
    let leap = n1 == 3 && (n4 != 24 || n100 == 3);
    let mut month = (n + 50) >> 5;
    let mut preceding =
        *DAYS_BEFORE_MONTH.get(usize::try_from(month).ok()?)? + i32::from(month > 2 && leap);
    if preceding > n {
        month -= 1;
        preceding -= days_in_month(year, month);
    }
    Some((year, month, n - preceding + 1))
}

/// `iso_to_ymd`: an ISO year, week (1–52, or 53 in long years) and weekday (1–7) as a date.
fn iso_to_ymd(iso_year: i32, week: i32, weekday: i32) -> Option<(i32, i32, i32)> {
    if week <= 0 || week >= 53 {
        let first_weekday = (ymd_to_ord(iso_year, 1, 1) + 6) % 7;
        let long_year = first_weekday == 3 || (first_weekday == 2 && is_leap(iso_year));
        if !(week == 53 && long_year) {
            return None;
        }
    }
    if weekday <= 0 || weekday >= 8 {
        return None;
    }
    let first_day = ymd_to_ord(iso_year, 1, 1);
    let first_weekday = (first_day + 6) % 7;
    let mut week1_monday = first_day - first_weekday;
    if first_weekday > 3 {
        week1_monday += 7;
    }
    ord_to_ymd(week1_monday + (week - 1) * 7 + weekday - 1)
}
