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

/// A copy of the demo data root (catalogs, databases and capability-1 files linked, documents and retriever files
/// copied), with indexes built by `vakra index` when `indexed`.
pub fn demo_root(indexed: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["openapi", "databases", "capability1"] {
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
        let output = vakra()
            .args(["index", "--root"])
            .arg(dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("indexed 3 domains, 87 documents"),
            "{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    dir
}

/// An MCP client session.
pub type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// An MCP session at `/mcp/<capability>/<domain>` of `server`.
pub async fn http_session(server: &Server, capability: &str, domain: &str) -> Client {
    use rmcp::ServiceExt;
    let url = format!("{}/mcp/{capability}/{domain}", server.base);
    ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
        url,
    ))
    .await
    .unwrap()
}

/// Calls `tool`: the text of the result and its `isError` flag, or the protocol error.
pub async fn try_call(
    client: &Client,
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
