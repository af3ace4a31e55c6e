//! CPython's `repr(float)`.

/// Formats `x` as CPython's `repr(float)` does, because every float that
/// reaches an agent (JSON bodies, error messages, tool output) went through
/// it in the reference.
///
/// The digits are the shortest ones that round-trip. Scientific notation is
/// used when the decimal exponent is below -4 or at least 16 (`1e-05`,
/// `1e+16`); otherwise the number is positional with at least one digit after
/// the point (`20.0`, `0.055`). Non-finite values give `inf`, `-inf`, `nan`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip length; among the candidates of that length
    // Python picks the correctly rounded one, which `{:.*e}` at that precision yields.
    let shortest = format!("{x:e}");
    let length = shortest
        .split('e')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    let sci = format!("{:.*e}", length.saturating_sub(1), x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();

    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    if !(-4..16).contains(&exp) {
        let (first, rest) = digits.split_at(digits.len().min(1));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
    } else if exp < 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', exp.unsigned_abs() as usize - 1));
        out.push_str(&digits);
    } else {
        let int_len = exp.unsigned_abs() as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
            out.push_str(".0");
        } else {
            let (int_part, frac_part) = digits.split_at(int_len);
            out.push_str(int_part);
            out.push('.');
            out.push_str(frac_part);
        }
    }
    out
}
