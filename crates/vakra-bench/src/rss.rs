//! `vakra-load rss`: a process's resident memory from /proc/PID/status.

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;

/// Options of `vakra-load rss`.
#[derive(Args)]
pub struct RssArgs {
    /// The process to look at.
    #[arg(long)]
    pid: u32,
    /// Print one JSON object instead of a readable block.
    #[arg(long)]
    json: bool,
}

/// Runs `vakra-load rss`.
pub fn run(args: RssArgs) -> Result<()> {
    let path = format!("/proc/{}/status", args.pid);
    let status = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    let rss = field_mib(&status, "VmRSS").with_context(|| format!("no VmRSS in {path}"))?;
    let hwm = field_mib(&status, "VmHWM").with_context(|| format!("no VmHWM in {path}"))?;
    if args.json {
        println!(
            "{}",
            json!({"pid": args.pid, "vm_rss_mib": rss, "vm_hwm_mib": hwm})
        );
    } else {
        println!("pid {}: VmRSS {rss:.1} MiB, VmHWM {hwm:.1} MiB", args.pid);
    }
    Ok(())
}

/// A `NAME:   1234 kB` field of /proc/PID/status, in MiB.
fn field_mib(status: &str, name: &str) -> Option<f64> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))?;
    let kib: f64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(crate::stats::round(kib / 1024.0, 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_are_read_in_mib() {
        let status = "Name:\tvakra\nVmHWM:\t   20480 kB\nVmRSS:\t   10752 kB\n";
        assert_eq!(field_mib(status, "VmRSS"), Some(10.5));
        assert_eq!(field_mib(status, "VmHWM"), Some(20.0));
        assert_eq!(field_mib(status, "VmSwap"), None);
    }
}
