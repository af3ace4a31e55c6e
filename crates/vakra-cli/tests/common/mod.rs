//! Helpers shared by the command-line tests: the repository's demo data root, a `vakra serve`
//! process on a free loopback port, and plain HTTP GETs.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The repository root, which is a data root with the demo domains.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

pub fn vakra() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vakra"))
}

/// A running `vakra serve`, stopped when dropped.
pub struct Server {
    child: Child,
    pub base: String,
}

impl Server {
    /// Starts `vakra serve` with `args` (plus `--listen 127.0.0.1:0`) and waits for its address.
    pub fn start(args: &[&str]) -> Self {
        let mut child = vakra()
            .arg("serve")
            .args(args)
            .args(["--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("vakra serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line from vakra serve: {line:?}"))
            .to_owned();
        Self { child, base }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GET `url`: status, content type and body text.
pub async fn get(url: &str) -> (u16, String, String) {
    request(reqwest::Method::GET, url).await
}

pub async fn request(method: reqwest::Method, url: &str) -> (u16, String, String) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = client.request(method, url).send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    (status, content_type, response.text().await.unwrap())
}
