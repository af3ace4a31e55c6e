use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use vakra_endpoint::RestBird;

use crate::serve_guard::{BodyGuard, Connections, guard_body};
use crate::{DataArgs, TraceDirArg};

#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    trace: TraceDirArg,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8000")]
    listen: SocketAddr,
    /// Threads that run the blocking work of tool calls at once (SQL statements, capability-1
    /// tables, BPO matching), all MCP sessions and episodes together; further calls wait their
    /// turn holding no thread (more threads only queue on the same cores, and each costs
    /// memory).
    #[arg(long, default_value_t = 4)]
    sql_threads: usize,
    /// The most of the --sql-threads one client address holds at once; its further calls wait
    /// for one of its own (default: half of --sql-threads, at least 1).
    #[arg(long = "client-call-threads")]
    client_call_threads: Option<usize>,
    /// Threads that run REST requests' statements and the retriever API's searches at once:
    /// their own, so that they never wait behind tool calls.
    #[arg(long = "rest-threads", default_value_t = 2)]
    rest_threads: usize,
    /// The most of the --rest-threads one client address holds at once (default: half of
    /// --rest-threads, at least 1).
    #[arg(long = "client-rest-threads")]
    client_rest_threads: Option<usize>,
    /// MCP sessions over HTTP alive at once (all capabilities and domains); more are refused
    /// with 503 until one ends or expires.
    #[arg(long = "max-sessions", default_value_t = 1024)]
    max_sessions: usize,
    /// MCP sessions over HTTP one client address keeps alive at once; more are refused with
    /// 503 (default: half of --max-sessions).
    #[arg(long = "max-client-sessions")]
    max_client_sessions: Option<usize>,
    /// Largest request body accepted, in bytes (413 beyond).
    #[arg(long = "max-body-bytes", default_value_t = 4 << 20)]
    max_body_bytes: usize,
    /// Seconds a client may take to send a whole request body (408 beyond).
    #[arg(long = "body-time-limit", default_value = "30", value_parser = crate::parse_seconds)]
    body_time_limit: Duration,
    /// Bytes of request bodies received at once over all connections; a body beyond it is
    /// refused with 503 (default: 64 times --max-body-bytes).
    #[arg(long = "max-body-bytes-in-flight")]
    max_body_bytes_in_flight: Option<usize>,
    /// Connections open at once; more are answered with 503 and closed (default: the
    /// descriptor limit, raised to its maximum, less a reserve for the server's files).
    #[arg(long = "max-connections")]
    max_connections: Option<usize>,
    /// Connections one client address keeps open at once; more are answered with 503 and
    /// closed (default: half of --max-connections), so that one client cannot keep others, or
    /// a health check, out.
    #[arg(long = "max-client-connections")]
    max_client_connections: Option<usize>,
    /// On SIGTERM or Ctrl-C, how long calls in flight may take to finish before the MCP
    /// sessions are closed anyway.
    #[arg(long = "shutdown-grace-secs", default_value_t = 30)]
    shutdown_grace_secs: u64,
    /// This replica's name, the prefix of its MCP session ids (`<name>.<uuid>`), so that a proxy
    /// in front of several replicas routes each session to its replica (docs/deployment.md);
    /// Kubernetes sets it to the pod's name.
    #[arg(long = "replica-name", env = "VAKRA_REPLICA_NAME")]
    replica_name: Option<String>,
    #[command(flatten)]
    episodes: crate::episodes::EpisodeArgs,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    limit_malloc_arenas();
    purge_freed_memory_at_once();
    args.data.require_data_root()?;
    let mut options = args.data.options()?;
    args.trace.apply(&mut options)?;
    anyhow::ensure!(
        args.sql_threads > 0 && args.rest_threads > 0,
        "--sql-threads and --rest-threads must be at least 1"
    );
    options.call_lanes = vakra_lanes::Lanes::new(
        "tool calls",
        ("--sql-threads", "--client-call-threads"),
        args.sql_threads,
        args.client_call_threads.unwrap_or(args.sql_threads / 2),
    );
    let rest_lanes = vakra_lanes::Lanes::new(
        "REST requests",
        ("--rest-threads", "--client-rest-threads"),
        args.rest_threads,
        args.client_rest_threads.unwrap_or(args.rest_threads / 2),
    );
    if let Some(name) = &args.replica_name {
        vakra_mcp::check_replica_name(name).map_err(anyhow::Error::msg)?;
    }
    options.replica_name = args.replica_name.clone();
    let bird = Arc::new(RestBird::load(
        &options.root,
        options.db_root.clone(),
        |_| true,
        options.sql_time_limit,
    )?);
    let api = vakra_rest::RestApi::with_lanes(Arc::clone(&bird), Arc::clone(&rest_lanes));
    let retrievers = options.retrievers()?;
    anyhow::ensure!(args.max_sessions > 0, "--max-sessions must be at least 1");
    let limits = vakra_mcp::HttpLimits {
        max_sessions: args.max_sessions,
        max_body_bytes: args.max_body_bytes,
        max_client_sessions: args
            .max_client_sessions
            .unwrap_or(args.max_sessions / 2)
            .max(1),
    };
    let (mcp, drain) = vakra_mcp::http_router(options.clone(), Arc::clone(&bird), limits);
    let mut app = vakra_rest::router(api).merge(mcp);
    if let Some(episodes) = args.episodes.router(&options, args.max_body_bytes)? {
        app = app.nest("/openenv", episodes);
    }
    let body_guard = Arc::new(BodyGuard::new(
        args.body_time_limit,
        args.max_body_bytes,
        args.max_body_bytes_in_flight
            .unwrap_or(args.max_body_bytes.saturating_mul(64)),
    ));
    let app = app
        .merge(vakra_explorer::router(options.clone(), Arc::clone(&bird)))
        .nest(
            "/retriever",
            vakra_retrieval::http_router(retrievers, Arc::clone(&rest_lanes)),
        )
        .layer(axum::extract::DefaultBodyLimit::max(args.max_body_bytes))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            args.max_body_bytes,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&body_guard),
            guard_body,
        ));
    let connections = Connections::new(args.max_connections, args.max_client_connections);
    let call_lanes = Arc::clone(&options.call_lanes);
    let grace = Duration::from_secs(args.shutdown_grace_secs);
    // Tool calls and REST requests are bounded by their lanes; the rest of the pool is for
    // the short blocking work beside them (endpoint builds, trace writes, retriever queries,
    // files), which thus never waits behind a slow call.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(args.sql_threads + args.rest_threads + OTHER_BLOCKING_THREADS)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen).await?;
        // The first line on stdout says where to connect (useful with port 0).
        println!("listening on http://{}", listener.local_addr()?);
        tracing::info!(
            "serving {} domains, {} endpoints on http://{addr} (ready in {:?}, at most {} connections, {} per client; tool calls: {} threads, {} per client; REST: {} threads, {} per client); MCP at /mcp/<capability>/<domain>; tools explorer at http://{addr}/explorer/",
            bird.domains().len(),
            bird.endpoints().len(),
            started.elapsed(),
            connections.max(),
            connections.per_client(),
            call_lanes.total(),
            call_lanes.per_client(),
            rest_lanes.total(),
            rest_lanes.per_client(),
            addr = listener.local_addr()?,
        );
        // On a signal: stop accepting, let the calls in flight finish, then close the MCP
        // sessions, whose open streams would otherwise hold their connections forever.
        let (signalled, cut_off) = tokio::sync::oneshot::channel::<()>();
        let stopping = async move {
            shutdown_signal().await;
            tracing::info!("shutting down: finishing the calls in flight");
            let _ = signalled.send(());
            tokio::spawn(async move {
                let unanswered = drain.drain(grace).await;
                if unanswered > 0 {
                    tracing::warn!("{unanswered} MCP calls still running after {grace:?}; closing");
                }
            });
        };
        let serving = serve_http(listener, app, connections, body_guard, stopping);
        // A call that outlives the grace period (and the time to send the answers of the
        // others) would keep its connection, and the server, alive: it is cut off.
        let deadline = async move {
            match cut_off.await {
                Ok(()) => tokio::time::sleep(grace + ANSWER_TIME).await,
                Err(_) => std::future::pending().await,
            }
        };
        tokio::select! {
            () = serving => {}
            () = deadline => tracing::warn!("calls still running {:?} after the signal; cut off", grace + ANSWER_TIME),
        }
        tracing::info!("stopped");
        anyhow::Ok(())
    })?;
    // Blocking tasks still running (a statement before its time limit) do not hold the exit.
    runtime.shutdown_timeout(ANSWER_TIME);
    Ok(())
}

/// Blocking threads beyond the lanes of tool calls and REST requests.
const OTHER_BLOCKING_THREADS: usize = 64;

/// The largest request head (request line and headers) read from a client, in bytes; a larger
/// one is answered with 431. Set explicitly (hyper's only bound is its read buffer, about
/// 400 KiB) because it is memory each connection may make the server hold before any limit of
/// a handler applies.
const MAX_HEAD_BYTES: usize = 64 << 10;
/// The most header fields in one request; more are answered with 431 (hyper's default).
const MAX_HEADERS: usize = 100;
/// How long a client may take to send a request head before its connection is closed, so that
/// a client trickling headers cannot hold a connection forever.
const HEAD_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `app` on `listener` over HTTP/1.1 with the head limits above, until `stopping`
/// resolves; then stops accepting and waits for the open connections to finish their
/// requests in flight (idle keep-alive connections are closed at once).
async fn serve_http(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    admission: Connections,
    body_guard: Arc<BodyGuard>,
    stopping: impl std::future::Future<Output = ()>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;
    use tower::ServiceExt;

    // Connections watch `signal` for the shutdown and hold `closed` until they end.
    let (signal, _) = tokio::sync::watch::channel(());
    let (closed, connections) = tokio::sync::watch::channel(());
    let mut stopping = std::pin::pin!(stopping);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    admission.accept_failed(&e);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stopping => break,
        };
        let place = match admission.admit(peer.ip().to_canonical()) {
            Ok(place) => place,
            Err(full) => {
                admission.refuse(stream, full);
                continue;
            }
        };
        // Every request carries its client's address: the key of its share of the lanes.
        let client = vakra_lanes::Client(peer.ip().to_canonical());
        // An upgraded connection's unread messages count against the body budget.
        let charge = body_guard.charge();
        let charged = vakra_episodes::Charged(Arc::clone(&charge) as _);
        let service = TowerToHyperService::new(app.clone().map_request(
            move |r: axum::extract::Request<hyper::body::Incoming>| {
                let mut r = r.map(axum::body::Body::new);
                r.extensions_mut().insert(client);
                r.extensions_mut().insert(charged.clone());
                r
            },
        ));
        let stream = crate::serve_guard::Counted {
            inner: stream,
            charge,
        };
        let mut stop = signal.subscribe();
        let open = connections.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .max_header_size(MAX_HEAD_BYTES)
                .max_headers(MAX_HEADERS)
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_READ_TIMEOUT);
            let connection = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stop.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(open);
            drop(place);
        });
    }
    drop(listener);
    drop(signal);
    drop(connections);
    closed.closed().await;
}

/// After the grace period, how long answers already computed may take to be sent, and how long
/// blocking work may take to stop, before the process exits regardless.
const ANSWER_TIME: Duration = Duration::from_secs(2);

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

/// mimalloc's `purge_delay` option (its `mi_option_t` value in mimalloc.h, v2 and v3 alike;
/// libmimalloc-sys does not name it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// mimalloc returns freed pages to the system 10 ms after they empty by default; a server whose
/// requests each allocate and free a little then keeps the pages of its recent peaks. Returning
/// them at once kept the REST load's resident memory at 55 MiB instead of 62 MiB (peak 57–60
/// instead of 72–77) and a finished `vakra-load mcp-mix` at 48–50 MiB instead of 91–93, at the
/// same throughput (docs/benchmarks.md, "Performance II").
fn purge_freed_memory_at_once() {
    // SAFETY: mi_option_set only changes an allocator tunable, read at each purge.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    }
}

/// glibc gives every thread that allocates its own malloc arena (up to 8 per core), which on a
/// busy server multiplies resident memory for no speed gain; two arenas per core keep it flat.
/// (Two arenas in all were measured to cost the RL episodes about 40% of their throughput on two
/// cores, from lock contention, for no memory saved: `docs/benchmarks.md`.)
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let arenas = i32::try_from(2 * cores).unwrap_or(i32::MAX);
        // SAFETY: mallopt only changes an allocator tunable; called before any thread is
        // started.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}
