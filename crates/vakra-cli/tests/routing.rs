//! The sticky-session rule of `deploy/kubernetes/` proved on loopback: 3 `vakra serve` replicas
//! (`--replica-name vakra-<i>`) behind a real nginx that includes the manifests' own routing
//! files (`deploy/kubernetes/nginx/routing.conf` and `locations.conf`), with the local
//! equivalent of the cluster's name lookup (an upstream per replica name). 64 MCP sessions at
//! once (capabilities 1, 2 and 4, the concurrency test's chains) answer as each chain does alone
//! and spread over the replicas; then one replica is killed: only its sessions fail, with 404,
//! their clients initialize again on live replicas, new sessions land on live replicas, and REST
//! requests sent all along never fail.
//!
//! nginx comes from Debian (`scripts/setup-nginx.sh`, run by `make test`); without it the test
//! is skipped unless VAKRA_REQUIRE_NGINX=1.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{Server, demo_root};
use futures_util::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse,
};
use sse_stream::Sse;
use tokio::sync::Barrier;
use vakra_bench::mix;
use vakra_test_kit::net::free_port;
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::switches::skip_or_fail;

const SESSIONS: usize = 64;
const REPLICAS: usize = 3;
const KILLED: usize = 1;

/// What one client saw of its session: the id the server gave, and whether a request of the
/// session was answered 404 (rmcp's `SessionExpired`).
#[derive(Default)]
struct Seen {
    session_id: Option<String>,
    not_found: bool,
}

/// reqwest's MCP client, recording what the session saw.
#[derive(Clone)]
struct Recording {
    inner: reqwest::Client,
    seen: Arc<Mutex<Seen>>,
}

impl Recording {
    fn note<T>(&self, result: &Result<T, StreamableHttpError<reqwest::Error>>) {
        if matches!(result, Err(StreamableHttpError::SessionExpired)) {
            self.seen.lock().unwrap().not_found = true;
        }
    }
}

impl StreamableHttpClient for Recording {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let result = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        self.note(&result);
        if let Ok(
            StreamableHttpPostResponse::Json(_, Some(id))
            | StreamableHttpPostResponse::Sse(_, Some(id)),
        ) = &result
        {
            self.seen.lock().unwrap().session_id = Some(id.clone());
        }
        result
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let result = self
            .inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await;
        self.note(&result);
        result
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        let result = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        self.note(&result);
        result
    }
}

type Client = RunningService<RoleClient, ()>;

/// Opens a session for `chain` through the proxy at `base`; a 404 is not retried, so that the
/// test sees it.
async fn connect(base: &str, chain: &mix::Chain) -> anyhow::Result<(Client, Arc<Mutex<Seen>>)> {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let client = Recording {
        inner: reqwest::Client::new(),
        seen: Arc::clone(&seen),
    };
    let config = StreamableHttpClientTransportConfig::with_uri(format!(
        "{base}/mcp/{}/library",
        chain.capability
    ))
    .reinit_on_expired_session(false);
    let transport = StreamableHttpClientTransport::with_client(client, config);
    Ok(((().serve(transport).await?), seen))
}

/// The replica a session id names (`vakra-<i>.<uuid>`).
fn replica_of(seen: &Mutex<Seen>) -> usize {
    let seen = seen.lock().unwrap();
    let id = seen
        .session_id
        .as_deref()
        .expect("the server gave a session id");
    let name = id.split_once('.').expect("a named session id").0;
    name.strip_prefix("vakra-")
        .and_then(|i| i.parse().ok())
        .unwrap_or_else(|| panic!("session id {id:?} names no replica"))
}

/// nginx, foreground, with its own config, pid, logs and temp files; killed when dropped.
struct Nginx {
    child: Child,
    base: String,
    dir: tempfile::TempDir,
}

impl Drop for Nginx {
    /// SIGTERM to the master, which stops its worker (a SIGKILL would orphan the worker, still
    /// listening); SIGKILL only if it has not exited within 5 s.
    fn drop(&mut self) {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill only sends a signal to the child this struct owns.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn nginx_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("VAKRA_NGINX") {
        return Some(path.into());
    }
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// The local stand-in for the cluster: the manifests' routing files, every replica in
/// `vakra_all`, and one upstream per replica name where the cluster has DNS names.
fn nginx_config(dir: &Path, port: u16, replicas: &[String]) -> String {
    let rules = repo_root().join("deploy/kubernetes/nginx");
    let d = dir.display();
    let all: String = replicas
        .iter()
        .map(|address| format!("        server {address};\n"))
        .collect();
    let named: String = replicas
        .iter()
        .enumerate()
        .map(|(i, address)| format!("    upstream vakra-{i} {{ server {address}; }}\n"))
        .collect();
    format!(
        "daemon off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n    access_log {d}/access.log;\n\
         client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi;\n    uwsgi_temp_path {d}/uwsgi;\n    scgi_temp_path {d}/scgi;\n\
         include {rules}/routing.conf;\n\
         upstream vakra_all {{\n{all}    }}\n{named}\
         map $vakra_replica $vakra_target {{\n        \"\" vakra_all;\n        default $vakra_replica;\n    }}\n\
         server {{\n        listen 127.0.0.1:{port};\n        include {rules}/locations.conf;\n    }}\n}}\n",
        rules = rules.display()
    )
}

fn start_nginx(binary: &Path, replicas: &[String]) -> Nginx {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let config = dir.path().join("nginx.conf");
    std::fs::write(&config, nginx_config(dir.path(), port, replicas)).unwrap();
    let child = Command::new(binary)
        .arg("-e")
        .arg(dir.path().join("error.log"))
        .arg("-p")
        .arg(dir.path())
        .arg("-c")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nginx starts");
    let base = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        let log = std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "nginx did not listen on {base}: {log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Nginx { child, base, dir }
}

/// REST calls through the proxy until `stop` (at most 2000), every one of which must succeed;
/// returns how many were made.
async fn rest_all_along(base: String, stop: Arc<AtomicUsize>) -> usize {
    let client = reqwest::Client::new();
    let url = format!("{base}/v1/library/most_borrowed_books?limit=2");
    let mut made = 0;
    while stop.load(Ordering::SeqCst) == 0 && made < 2000 {
        let response = client.get(&url).send().await;
        let status = response.as_ref().map(|r| r.status().as_u16());
        assert_eq!(status.ok(), Some(200), "REST call {made}: {response:?}");
        made += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    made
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sessions_stay_on_their_replica_and_lose_only_a_killed_one() {
    let Some(nginx_bin) = nginx_binary() else {
        skip_or_fail(
            "VAKRA_REQUIRE_NGINX",
            "nginx is not installed (scripts/setup-nginx.sh installs it)",
        );
        return;
    };
    let root = demo_root(true);
    let root_arg = root.path().to_str().unwrap();
    let mut replicas: Vec<Option<Server>> = (0..REPLICAS)
        .map(|i| {
            let name = format!("vakra-{i}");
            Some(Server::start(&[
                "--root",
                root_arg,
                "--replica-name",
                &name,
            ]))
        })
        .collect();
    let addresses: Vec<String> = replicas
        .iter()
        .map(|r| {
            r.as_ref()
                .unwrap()
                .base
                .trim_start_matches("http://")
                .to_owned()
        })
        .collect();
    let proxy = start_nginx(&nginx_bin, &addresses);
    let base = proxy.base.clone();

    // Each chain alone, on one replica directly, one session at a time.
    let direct = replicas[0].as_ref().unwrap().base.clone();
    let mut alone = Vec::new();
    for i in 0..SESSIONS {
        let chain = mix::chain(i);
        let client = mix::connect(&direct, &chain).await.unwrap();
        alone.push(mix::run(&client, &chain, &mut Vec::new()).await.unwrap());
        client.cancel().await.unwrap();
    }

    let stop_rest = Arc::new(AtomicUsize::new(0));
    let rest = tokio::spawn(rest_all_along(base.clone(), Arc::clone(&stop_rest)));

    // 64 sessions through the proxy, all open before any chain starts.
    let barrier = Arc::new(Barrier::new(SESSIONS));
    let mut tasks = Vec::new();
    for i in 0..SESSIONS {
        let (base, barrier) = (base.clone(), Arc::clone(&barrier));
        tasks.push(tokio::spawn(async move {
            let chain = mix::chain(i);
            let (client, seen) = connect(&base, &chain).await?;
            barrier.wait().await;
            let transcript = mix::run(&client, &chain, &mut Vec::new()).await?;
            anyhow::Ok((client, seen, transcript))
        }));
    }
    let mut sessions = Vec::new();
    let mut per_replica = BTreeMap::new();
    for (i, task) in tasks.into_iter().enumerate() {
        let (client, seen, transcript) = task
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("session {i}: {e:#}"));
        assert_eq!(
            transcript, alone[i],
            "session {i} answered otherwise than alone"
        );
        let replica = replica_of(&seen);
        *per_replica.entry(replica).or_insert(0) += 1;
        sessions.push((client, seen, replica));
    }
    assert_eq!(
        per_replica.len(),
        REPLICAS,
        "new sessions spread over every replica: {per_replica:?}"
    );

    // One replica dies: its sessions are lost, and only those.
    replicas[KILLED].take();
    let mut lost = Vec::new();
    for (i, (client, seen, replica)) in sessions.iter().enumerate() {
        let answer = tokio::time::timeout(Duration::from_secs(30), client.list_all_tools()).await;
        let answer = answer.unwrap_or_else(|_| panic!("session {i}: no answer within 30 s"));
        if *replica == KILLED {
            assert!(
                answer.is_err(),
                "session {i} on the killed replica answered"
            );
            assert!(
                seen.lock().unwrap().not_found,
                "session {i} on the killed replica: its client saw no 404"
            );
            lost.push(i);
        } else {
            let tools = answer.unwrap_or_else(|e| panic!("session {i} on a live replica: {e}"));
            assert!(!tools.is_empty(), "session {i}");
            assert!(!seen.lock().unwrap().not_found, "session {i} saw a 404");
        }
    }
    assert_eq!(lost.len(), per_replica[&KILLED]);
    for (client, _, _) in sessions {
        let _ = client.cancel().await;
    }

    // The same 404 for any request naming the dead replica, as a plain HTTP client sees it.
    let status = reqwest::Client::new()
        .post(format!("{base}/mcp/2/library"))
        .header("mcp-session-id", format!("vakra-{KILLED}.0000"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 404);

    // The lost sessions' clients initialize again, and new clients come: all on live replicas,
    // each answering as alone.
    let again: Vec<usize> = lost
        .iter()
        .copied()
        .chain(SESSIONS..SESSIONS + 12)
        .collect();
    for i in again {
        let chain = mix::chain(i);
        let (client, seen) = connect(&base, &chain)
            .await
            .unwrap_or_else(|e| panic!("session {i} again: {e:#}"));
        let replica = replica_of(&seen);
        assert_ne!(replica, KILLED, "session {i} landed on the killed replica");
        let transcript = mix::run(&client, &chain, &mut Vec::new()).await.unwrap();
        if i < SESSIONS {
            assert_eq!(transcript, alone[i], "session {i} again");
        } else {
            assert_eq!(transcript.len(), chain.steps.len());
            assert!(transcript.iter().all(|(_, _, error)| !error), "session {i}");
        }
        client.cancel().await.unwrap();
    }

    stop_rest.store(1, Ordering::SeqCst);
    let made = rest
        .await
        .expect("every REST call through the proxy succeeded");
    assert!(made > 10, "{made} REST calls");
    let log = std::fs::read_to_string(proxy.dir.path().join("access.log")).unwrap();
    assert!(log.contains("/mcp/1/library") && log.contains("/v1/library/"));
}
