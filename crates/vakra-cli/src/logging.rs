//! The log on stderr: `RUST_LOG` or a per-command default level (rmcp's own at warnings: it
//! writes seven lines for every session, and the evaluator and the RL episodes open sessions
//! by the hundred per second), colour codes only on a terminal, and without the warning rmcp
//! logs when a client probes for a protocol version
//! this server does not speak (every `mcp` 2.x client tries `2026-07-28` first, then falls
//! back to `initialize`): that line shows only when debug logging is on.

use std::fmt::Write as _;

use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::FilterExt;
use tracing_subscriber::layer::{Context, Filter, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

pub fn init(default_level: &str) {
    let levels = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new(format!("{default_level},rmcp=warn"))
    });
    let debug = levels
        .max_level_hint()
        .is_some_and(|max| max >= LevelFilter::DEBUG);
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .with_filter(levels.and(ProbeNoise { debug }));
    tracing_subscriber::registry().with(layer).init();
}

/// Drops rmcp's `response error` warning for an unsupported protocol version unless debug
/// logging is on.
struct ProbeNoise {
    debug: bool,
}

impl ProbeNoise {
    fn may_be_probe(metadata: &Metadata<'_>) -> bool {
        metadata.is_event()
            && *metadata.level() == Level::WARN
            && metadata.target().starts_with("rmcp")
    }
}

impl<S> Filter<S> for ProbeNoise {
    fn enabled(&self, _metadata: &Metadata<'_>, _cx: &Context<'_, S>) -> bool {
        true
    }

    fn callsite_enabled(&self, metadata: &'static Metadata<'static>) -> Interest {
        if Self::may_be_probe(metadata) && !self.debug {
            Interest::sometimes()
        } else {
            Interest::always()
        }
    }

    fn event_enabled(&self, event: &Event<'_>, _cx: &Context<'_, S>) -> bool {
        if self.debug || !Self::may_be_probe(event.metadata()) {
            return true;
        }
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        !is_version_probe(&fields.0)
    }
}

/// The event's fields as `name=value` text.
struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }
}

/// Whether an event's fields are rmcp's answer to a protocol-version probe.
fn is_version_probe(fields: &str) -> bool {
    fields.contains("message=response error") && fields.contains("ErrorCode(-32022)")
}

#[cfg(test)]
mod tests {
    use super::is_version_probe;

    #[test]
    fn only_the_version_probe_answer_is_recognised() {
        let probe = r#"message=response error id=1 error=ErrorData { code: ErrorCode(-32022), message: "Unsupported protocol version", data: None } "#;
        assert!(is_version_probe(probe));
        let other = r#"message=response error id=2 error=ErrorData { code: ErrorCode(-32601), message: "Method not found", data: None } "#;
        assert!(!is_version_probe(other));
    }
}
