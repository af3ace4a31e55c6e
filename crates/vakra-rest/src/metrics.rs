use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// Request counters exposed at `/metrics` in Prometheus' text format (the reference's app has a
/// `/metrics` route too, so the path is part of its API).
#[derive(Default)]
pub(crate) struct Metrics {
    ok: AtomicU64,
    invalid: AtomicU64,
    failed: AtomicU64,
    not_found: AtomicU64,
}

/// Which counter a response goes to.
#[derive(Clone, Copy)]
pub(crate) enum Counted {
    Ok,
    Invalid,
    Failed,
    NotFound,
}

impl Metrics {
    pub(crate) fn count(&self, what: Counted) {
        let counter = match what {
            Counted::Ok => &self.ok,
            Counted::Invalid => &self.invalid,
            Counted::Failed => &self.failed,
            Counted::NotFound => &self.not_found,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn render(&self) -> String {
        let mut out = String::from(
            "# HELP vakra_http_requests_total REST-BIRD requests by response status.\n\
             # TYPE vakra_http_requests_total counter\n",
        );
        for (status, counter) in [
            ("200", &self.ok),
            ("404", &self.not_found),
            ("422", &self.invalid),
            ("500", &self.failed),
        ] {
            let _ = writeln!(
                out,
                "vakra_http_requests_total{{status=\"{status}\"}} {}",
                counter.load(Ordering::Relaxed)
            );
        }
        out
    }
}
