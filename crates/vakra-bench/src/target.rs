//! The loopback-only rule: every URL this tool talks to is on this machine.

use std::net::IpAddr;

use anyhow::{Context, Result, bail};
use reqwest::Url;

/// Parses `text` as an `http://` URL whose host is loopback.
pub fn parse_loopback_url(text: &str) -> Result<Url> {
    let url = Url::parse(text).with_context(|| format!("invalid URL {text:?}"))?;
    ensure_loopback(&url)?;
    Ok(url)
}

/// Fails unless `url` is plain HTTP to 127.0.0.0/8, `localhost` or `[::1]`.
pub fn ensure_loopback(url: &Url) -> Result<()> {
    if url.scheme() != "http" {
        bail!("{url}: only http:// URLs are supported");
    }
    let host = url.host_str().unwrap_or_default();
    if !is_loopback_host(host) {
        bail!(
            "refusing non-loopback target {url} (host {host:?}): only 127.0.0.0/8, localhost and [::1] are allowed"
        );
    }
    Ok(())
}

/// Whether a URL host (as `Url::host_str` spells it) names this machine's loopback interface.
fn is_loopback_host(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    bare.parse::<IpAddr>()
        .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_accepted() {
        for url in [
            "http://127.0.0.1:8000",
            "http://127.1.2.3/x",
            "http://localhost:1/",
            "http://LOCALHOST",
            "http://[::1]:8000/openapi.json",
            "http://[::ffff:127.0.0.1]:80",
        ] {
            assert!(parse_loopback_url(url).is_ok(), "{url}");
        }
    }

    #[test]
    fn other_hosts_are_refused() {
        for url in [
            "http://10.0.0.1:8000",
            "http://192.168.1.1",
            "http://128.0.0.1",
            "http://example.com",
            "http://localhost.example.com",
            "http://[::2]",
            "http://0.0.0.0:8000",
            "http://127.0.0.1:8000@example.com/",
            "https://127.0.0.1",
            "ftp://127.0.0.1",
            "not a url",
        ] {
            assert!(parse_loopback_url(url).is_err(), "{url}");
        }
    }
}
