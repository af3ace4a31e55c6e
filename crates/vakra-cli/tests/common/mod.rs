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

/// An MCP client session.
pub type McpClient = rmcp::service::RunningService<rmcp::service::RoleClient, ()>;

/// An MCP session with a `vakra mcp` child process started with `args`.
pub async fn stdio_client(args: &[&str]) -> McpClient {
    use rmcp::ServiceExt;
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vakra"));
    command.arg("mcp").args(args).stderr(Stdio::null());
    ().serve(rmcp::transport::TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

/// Runs a command that must succeed (its stderr is shown when it does not).
pub fn output_ok(command: &mut Command) -> std::process::Output {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// An MCP session over streamable HTTP at `<base>/mcp/<capability>/<domain>`.
pub async fn http_client(base: &str, capability: &str, domain: &str) -> McpClient {
    use rmcp::ServiceExt;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(format!(
        "{base}/mcp/{capability}/{domain}"
    ));
    ().serve(transport).await.unwrap()
}

/// Calls a tool: the text of its one content block and its `isError` flag.
pub async fn call_tool(
    client: &McpClient,
    tool: &str,
    arguments: serde_json::Value,
) -> (String, bool) {
    let serde_json::Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    let result = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments),
        )
        .await
        .unwrap_or_else(|e| panic!("{tool}: the call failed at the protocol level: {e}"));
    assert_eq!(result.content.len(), 1, "{tool}: one text block");
    let text = result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone();
    (text, result.is_error.unwrap_or(false))
}

/// Chromium and node with playwright-core, and the path of `script` in tests/browser. When they
/// are missing the caller skips (`None`, after saying why), unless `VAKRA_REQUIRE_BROWSER` is
/// set (as `make test` does), which fails the test.
pub fn browser_tooling(script: &str) -> Option<(PathBuf, PathBuf)> {
    let chromium = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let dir = repo_root().join("tests/browser");
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    let missing = if !chromium.is_file() {
        Some(format!("{} is missing", chromium.display()))
    } else if !dir
        .join("node_modules/playwright-core/package.json")
        .is_file()
    {
        Some(format!(
            "{}/node_modules has no playwright-core",
            dir.display()
        ))
    } else if !node_ok {
        Some("node is not on PATH".to_owned())
    } else {
        None
    };
    match missing {
        None => Some((chromium, dir.join(script))),
        Some(why) => {
            assert!(
                std::env::var_os("VAKRA_REQUIRE_BROWSER").is_none(),
                "VAKRA_REQUIRE_BROWSER is set but the browser test cannot run: {why} (run `make browser`)"
            );
            eprintln!("skipped: {why}; `make browser` installs Chromium and playwright-core");
            None
        }
    }
}

/// Runs a node script of tests/browser with `args` (two minutes at most) and parses the JSON it
/// prints.
pub async fn run_browser_script(
    chromium: &Path,
    script: &Path,
    args: &[&std::ffi::OsStr],
) -> serde_json::Value {
    let output = tokio::process::Command::new("node")
        .arg(script)
        .args(args)
        .env("CHROMIUM", chromium)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(120), output)
        .await
        .expect("the browser run finishes within two minutes")
        .unwrap();
    assert!(
        output.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}
