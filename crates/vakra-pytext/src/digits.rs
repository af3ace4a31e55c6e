//! Integers beyond 64 bits as Python keeps them: exact. serde_json (without its workspace-wide
//! `arbitrary_precision`) reads such an integer as the nearest float, which Python would print
//! as `1e+20`; while a future runs [`WithDigits`], an integral float that one of the given
//! digit strings reads as is printed ([`crate::py_repr`], [`crate::py_str`], [`crate::dumps`])
//! with those digits instead, as the Python reference prints the integer it received.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

thread_local! {
    static DIGITS: RefCell<Option<Arc<[String]>>> = const { RefCell::new(None) };
}

/// A future that prints the floats read from `digits` as those digits while it is polled.
pub struct WithDigits<F> {
    inner: Pin<Box<F>>,
    digits: Arc<[String]>,
}

impl<F: Future> WithDigits<F> {
    pub fn new(digits: Arc<[String]>, inner: F) -> Self {
        Self {
            inner: Box::pin(inner),
            digits,
        }
    }
}

impl<F: Future> Future for WithDigits<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let digits = Arc::clone(&self.digits);
        scoped(Some(digits), || self.inner.as_mut().poll(cx))
    }
}

/// The digits in force on this thread, to hand to work that runs on another ([`scoped`]).
pub fn current() -> Option<Arc<[String]>> {
    DIGITS.with(|current| current.borrow().clone())
}

/// Runs `work` with `digits` in force on this thread.
pub fn scoped<T>(digits: Option<Arc<[String]>>, work: impl FnOnce() -> T) -> T {
    let outer = DIGITS.with(|current| current.replace(digits));
    let done = work();
    DIGITS.with(|current| *current.borrow_mut() = outer);
    done
}

/// The integer literals of `text` (outside strings) beyond 64 bits, at most `limit` of them.
pub fn big_integers(text: &[u8], limit: usize) -> Vec<String> {
    let (mut found, mut at, mut in_string) = (Vec::new(), 0, false);
    while at < text.len() && found.len() < limit {
        let byte = text[at];
        if in_string {
            match byte {
                b'\\' => at += 1,
                b'"' => in_string = false,
                _ => {}
            }
            at += 1;
            continue;
        }
        if byte == b'"' {
            in_string = true;
            at += 1;
            continue;
        }
        if byte == b'-' || byte.is_ascii_digit() {
            let end = text[at..]
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || b"+-.".contains(b)))
                .map_or(text.len(), |n| at + n);
            let token = &text[at..end];
            let integral = token.iter().skip(1).all(u8::is_ascii_digit);
            if integral
                && let Ok(token) = std::str::from_utf8(token)
                && token.parse::<i64>().is_err()
                && token.parse::<u64>().is_err()
                && token.parse::<f64>().is_ok_and(f64::is_finite)
            {
                found.push(token.to_owned());
            }
            at = end;
            continue;
        }
        at += 1;
    }
    found
}

/// The digits `x` was read from, when the future being polled was given them.
pub(crate) fn digits_of(x: f64) -> Option<String> {
    if x.fract() != 0.0 || x.abs() < 9.2e18 {
        return None;
    }
    DIGITS.with(|current| {
        current
            .borrow()
            .as_ref()?
            .iter()
            .find(|digits| digits.parse::<f64>().ok() == Some(x))
            .cloned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_integers_beyond_64_bits_are_found() {
        let text =
            br#"{"a": 100000000000000000000, "b": [-18446744073709551617, 18446744073709551615],
            "c": "123456789012345678901234", "d": 1e30, "e": 12345678901234567890123.0}"#;
        assert_eq!(
            big_integers(text, 10),
            ["100000000000000000000", "-18446744073709551617"]
        );
        assert_eq!(big_integers(text, 1), ["100000000000000000000"]);
    }

    fn poll_once<F: Future>(future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => output,
            Poll::Pending => panic!("not ready"),
        }
    }

    #[test]
    fn floats_print_as_their_digits_only_within_the_future() {
        let value: serde_json::Value =
            serde_json::from_str("[100000000000000000000, 1e20, 3e20, 1.5]").unwrap();
        let digits: Arc<[String]> = Arc::from(vec!["100000000000000000000".to_owned()]);
        let printed = poll_once(WithDigits::new(Arc::clone(&digits), async {
            crate::py_repr(&value)
        }));
        assert_eq!(
            printed,
            "[100000000000000000000, 100000000000000000000, 3e+20, 1.5]"
        );
        assert_eq!(crate::py_repr(&value), "[1e+20, 1e+20, 3e+20, 1.5]");
        let handed = poll_once(WithDigits::new(Arc::clone(&digits), async { current() }));
        let printed = std::thread::spawn(move || scoped(handed, || crate::py_str(&value[0])));
        assert_eq!(printed.join().unwrap(), "100000000000000000000");
    }
}
