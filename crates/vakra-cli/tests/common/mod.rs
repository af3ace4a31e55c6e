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
        Self::start_at(args, "127.0.0.1:0")
    }

    /// Starts `vakra serve` with `args` on `address` and waits for it to listen.
    pub fn start_at(args: &[&str], address: &str) -> Self {
        let mut child = vakra()
            .arg("serve")
            .args(args)
            .args(["--listen", address])
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

impl Server {
    /// Sends SIGTERM and waits (at most `limit`) for the process to exit.
    pub fn terminate(&mut self, limit: std::time::Duration) -> std::process::ExitStatus {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill only sends a signal to the child this struct owns.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let started = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                started.elapsed() < limit,
                "vakra serve did not exit within {limit:?} of SIGTERM"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
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

/// One operation of the synthetic `slow` domain: path slug, parameter, its type, SQL, fetch
/// mode and response expression.
const SLOW_OPERATIONS: [(&str, &str, &str, &str, &str, &str); 3] = [
    (
        "count_to",
        "n",
        "integer",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) FROM c",
        "one",
        "{'count': result[0]}",
    ),
    (
        "numbers",
        "n",
        "integer",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT x FROM c",
        "all",
        "{'numbers': [row[0] for row in result]}",
    ),
    (
        "add_note",
        "body",
        "string",
        "INSERT INTO notes (body) VALUES (?) RETURNING id",
        "all",
        "{'rows': result}",
    ),
];

/// A data root with one synthetic domain, `slow`, whose endpoints take as long (`count_to`)
/// or answer as much (`numbers`) as the client asks, and one that tries to write (`add_note`);
/// its database holds a table `notes` with one row.
pub fn slow_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = serde_json::Map::new();
    for (slug, param, kind, sql, fetch, response) in SLOW_OPERATIONS {
        paths.insert(
            format!("/v1/slow/{slug}"),
            serde_json::json!({"get": {
                "summary": format!("Synthetic endpoint {slug}."),
                "operationId": format!("get_{slug}"),
                "parameters": [{"name": param, "in": "query", "description": param,
                    "required": true, "schema": {"type": kind, "title": param, "description": param}}],
                "responses": {"200": {"description": "Successful Response",
                    "content": {"application/json": {"schema": {"type": "object"}}}}},
                "x-vakra": {"sql": sql, "binds": [param], "fetch": fetch, "result": "result",
                    "empty": {"empty": []}, "response": response}
            }}),
        );
    }
    let catalog = serde_json::json!({
        "openapi": "3.1.0",
        "info": {"title": "REST-BIRD slow", "version": "1"},
        "x-vakra-domain": {"name": "slow", "source": "tests/common"},
        "paths": paths,
    });
    std::fs::create_dir_all(dir.path().join("openapi")).unwrap();
    std::fs::write(
        dir.path().join("openapi/domains.json"),
        r#"{"domains": ["slow"]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("openapi/slow.json"),
        serde_json::to_string_pretty(&catalog).unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("databases/slow")).unwrap();
    rusqlite::Connection::open(dir.path().join("databases/slow/slow.sqlite"))
        .unwrap()
        .execute_batch(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('first');",
        )
        .unwrap();
    dir
}

/// A copy of the demo data root (catalogs, databases, capability-1 and BPO files linked,
/// documents and retriever files copied), with indexes built by `vakra index` when `indexed`.
pub fn demo_root(indexed: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["openapi", "databases", "capability1", "bpo"] {
        std::os::unix::fs::symlink(repo_root().join(folder), dir.path().join(folder)).unwrap();
    }
    for folder in ["documents", "retrievers"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
        for entry in std::fs::read_dir(repo_root().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(
                &path,
                dir.path().join(folder).join(path.file_name().unwrap()),
            )
            .unwrap();
        }
    }
    if indexed {
        index(dir.path(), &[]);
    }
    dir
}

/// Runs `vakra index` on `root` with extra arguments; returns its summary line.
pub fn index(root: &Path, args: &[&std::ffi::OsStr]) -> String {
    let output = vakra()
        .args(["index", "--root"])
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success() && stdout.contains("indexed 3 domains, 87 documents"),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// An MCP session at `/mcp/<capability>/<domain>` of `server`.
pub async fn http_session(server: &Server, capability: &str, domain: &str) -> McpClient {
    http_client(&server.base, capability, domain).await
}

/// Calls `tool`: the text of the result and its `isError` flag, or the protocol error.
pub async fn try_call(
    client: &McpClient,
    tool: &str,
    arguments: serde_json::Value,
) -> Result<(String, bool), rmcp::ServiceError> {
    let serde_json::Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    vakra_bench::mix::call(client, tool, arguments).await
}

/// One raw HTTP/1.1 exchange on a fresh connection, for requests a client library would
/// normalise or refuse: the status code and the whole response text.
pub fn raw_http(base: &str, request: &[u8]) -> (u16, String) {
    use std::io::{Read, Write};
    let address = base.strip_prefix("http://").unwrap();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    // The server may answer and close before reading all of an oversized request.
    let _ = stream.write_all(request);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status in {text:?}"));
    (status, text)
}

/// A raw JSON `POST` of `body` to `target`, accepting JSON and event streams (as MCP clients
/// do), with `Connection: close`.
pub fn raw_post(base: &str, target: &str, body: &str) -> (u16, String) {
    raw_http(
        base,
        format!(
            "POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
}

/// A raw `GET` of `target` (sent as is) with `Connection: close`.
pub fn raw_get(base: &str, target: &str) -> (u16, String) {
    raw_http(
        base,
        format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// The demo benchmark split (`demo/tasks`), the evaluator's ground truth in the tests.
pub fn demo_split() -> PathBuf {
    repo_root().join("demo/tasks")
}

/// The demo split's ground-truth output records of one capability folder and domain.
pub fn demo_ground_truth(capability_dir: &str, domain: &str) -> Vec<serde_json::Value> {
    let path = demo_split()
        .join(capability_dir)
        .join("output")
        .join(format!("{domain}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs `vakra eval` of `predictions` against the demo split on `root`, which must succeed;
/// returns its stdout and the report.
pub fn run_eval(root: &Path, predictions: &Path, extra: &[&str]) -> (String, serde_json::Value) {
    let (output, report) = run_eval_split(&demo_split(), root, predictions, extra);
    (String::from_utf8_lossy(&output.stdout).into_owned(), report)
}

/// Runs `vakra eval` on a ground-truth split, which must succeed; returns its output and the
/// report.
pub fn run_eval_split(
    split: &Path,
    root: &Path,
    predictions: &Path,
    extra: &[&str],
) -> (std::process::Output, serde_json::Value) {
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("report.json");
    let output = output_ok(
        vakra()
            .args(["eval", "--quiet", "--ground-truth"])
            .arg(split)
            .arg("--predictions")
            .arg(predictions)
            .arg("--root")
            .arg(root)
            .arg("--report")
            .arg(&report)
            .args(extra),
    );
    let report = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    (output, report)
}

/// One sample of a report, by capability and uuid.
pub fn report_sample<'a>(
    report: &'a serde_json::Value,
    capability: &str,
    uuid: &str,
) -> &'a serde_json::Value {
    report["capabilities"][capability]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uuid"] == uuid)
        .unwrap_or_else(|| panic!("no sample {uuid} in capability {capability}"))
}

/// The reference checkout that `VAKRA_REF` names. Without it the caller skips (`None`, after
/// saying why), unless `VAKRA_REQUIRE_REF=1` (as `scripts/conformance.sh` sets), which fails the
/// test instead; so does a `VAKRA_REF` that is not a folder.
pub fn reference_checkout(what: &str) -> Option<PathBuf> {
    let required = std::env::var("VAKRA_REQUIRE_REF").is_ok_and(|v| v == "1");
    match std::env::var_os("VAKRA_REF").map(PathBuf::from) {
        Some(path) if path.is_dir() => Some(path),
        Some(path) => panic!("VAKRA_REF={} is not a folder", path.display()),
        None if required => panic!("VAKRA_REQUIRE_REF=1 but VAKRA_REF is not set: {what}"),
        None => {
            eprintln!("skipped ({what}): set VAKRA_REF to a reference checkout");
            None
        }
    }
}
