//! Helpers of the command-line tests that are about `vakra` itself: the binary, `vakra serve`
//! on a free loopback port, MCP sessions with `vakra mcp` and `vakra serve`, data roots (the
//! demo's, indexed, and a synthetic slow domain), `vakra eval` runs, and the browser tooling.
//! What is not about `vakra` comes from vakra-test-kit.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use vakra_test_kit::mcp::McpClient;
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::process::output_ok;
use vakra_test_kit::python::run_check;
use vakra_test_kit::root::TempRoot;
use vakra_test_kit::switches::skip_or_fail;

/// Held by the tests that keep a core busy on purpose for seconds while they time how others
/// answer (`stall`): one such test at a time, so that on a two-core machine their time bounds
/// measure the server, not each other.
pub async fn busy_core_turn() -> tokio::sync::MutexGuard<'static, ()> {
    static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    TURN.lock().await
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
        Self::spawn(args, address, Stdio::null())
    }

    /// Starts `vakra serve` with `args`, its log written to `log`.
    pub fn start_logging(args: &[&str], log: &Path) -> Self {
        let log = std::fs::File::create(log).expect("the log file");
        Self::spawn(args, "127.0.0.1:0", Stdio::from(log))
    }

    fn spawn(args: &[&str], address: &str, log: Stdio) -> Self {
        let mut child = vakra()
            .arg("serve")
            .args(args)
            .args(["--listen", address])
            .stdout(Stdio::piped())
            .stderr(log)
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
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

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

/// An MCP session with a `vakra mcp` child process started with `args`.
pub async fn stdio_client(args: &[&str]) -> McpClient {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vakra"));
    command.arg("mcp").args(args).stderr(Stdio::null());
    vakra_test_kit::mcp::stdio_client(command).await
}

/// An MCP session over streamable HTTP at `<base>/mcp/<capability>/<domain>`.
pub async fn http_client(base: &str, capability: &str, domain: &str) -> McpClient {
    vakra_test_kit::mcp::http_client(&format!("{base}/mcp/{capability}/{domain}")).await
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
            skip_or_fail(
                "VAKRA_REQUIRE_BROWSER",
                &format!("{why}; `make browser` installs Chromium and playwright-core"),
            );
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
    let root = TempRoot::demo();
    if indexed {
        index(root.path(), &[]);
    }
    root.into_dir()
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

/// Calls `tool`: the text of the result and its `isError` flag, or the protocol error (as the
/// load tool's workload calls it).
pub async fn try_call(
    client: &McpClient,
    tool: &str,
    arguments: serde_json::Value,
) -> Result<(String, bool), rmcp::ServiceError> {
    vakra_bench::mix::call(client, tool, vakra_test_kit::text::args(arguments)).await
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

/// The checksum of a tool listing (a JSON file of tools) by the reference's
/// `tool_checksums.compute_tool_checksum`, restated in Python (`python3`).
pub fn python_tool_checksum(listing: &Path) -> String {
    let python = Command::new("python3")
        .arg("-c")
        .arg(
            "import hashlib, json, sys\n\
             tools = json.load(open(sys.argv[1]))\n\
             entries = [{'name': t['name'], 'inputSchema': t['inputSchema']} for t in sorted(tools, key=lambda t: t['name'])]\n\
             print(hashlib.sha256(json.dumps(entries, sort_keys=True, separators=(',', ':')).encode()).hexdigest())",
        )
        .arg(listing)
        .output()
        .expect("python3 is needed for this test");
    assert!(
        python.status.success(),
        "{}",
        String::from_utf8_lossy(&python.stderr)
    );
    String::from_utf8(python.stdout).unwrap().trim().to_owned()
}

/// Asserts that `vakra tools checksums` on `root` finds all three entries of `expected` (a
/// checksums file's JSON) matched.
pub fn assert_three_checksums_match(expected: &serde_json::Value, root: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tool_checksums.json");
    std::fs::write(&file, expected.to_string()).unwrap();
    let output = vakra()
        .args(["tools", "checksums"])
        .arg(&file)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("checksums: 3 matched, 0 mismatched, 0 not available"),
        "{stdout}"
    );
}

/// Runs the official Python client's check `script` (tests/python) against `vakra mcp` and a
/// `vakra serve` of the demo root, whose base URL it is given after `base_flag`.
pub fn official_client_check(script: &str, base_flag: &str) {
    let root = repo_root();
    let root = root.to_str().unwrap();
    let server = Server::start(&["--root", root]);
    let vakra = env!("CARGO_BIN_EXE_vakra");
    let args = ["--vakra", vakra, "--root", root, base_flag, &server.base];
    run_check(script, args, " passed, 0 failed");
}
