use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use vakra_endpoint::RestBird;

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
    /// Threads that run SQL statements at once (more only queue on the same cores, and each
    /// costs memory).
    #[arg(long, default_value_t = 4)]
    sql_threads: usize,
    /// MCP sessions over HTTP alive at once (all capabilities and domains); more are refused
    /// with 503 until one ends or expires.
    #[arg(long = "max-sessions", default_value_t = 1024)]
    max_sessions: usize,
    /// Largest request body accepted, in bytes (413 beyond).
    #[arg(long = "max-body-bytes", default_value_t = 4 << 20)]
    max_body_bytes: usize,
    /// On SIGTERM or Ctrl-C, how long calls in flight may take to finish before the MCP
    /// sessions are closed anyway.
    #[arg(long = "shutdown-grace-secs", default_value_t = 30)]
    shutdown_grace_secs: u64,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    limit_malloc_arenas();
    let mut options = args.data.options()?;
    args.trace.apply(&mut options)?;
    let bird = Arc::new(RestBird::load(
        &options.root,
        options.db_root.clone(),
        |_| true,
        options.sql_time_limit,
    )?);
    let api = vakra_rest::RestApi::new(Arc::clone(&bird));
    let retrievers = options.retrievers()?;
    anyhow::ensure!(args.max_sessions > 0, "--max-sessions must be at least 1");
    let limits = vakra_mcp::HttpLimits {
        max_sessions: args.max_sessions,
        max_body_bytes: args.max_body_bytes,
    };
    let (mcp, drain) = vakra_mcp::http_router(options.clone(), Arc::clone(&bird), limits);
    let app = vakra_rest::router(api)
        .merge(mcp)
        .merge(vakra_explorer::router(options.clone(), Arc::clone(&bird)))
        .nest("/retriever", vakra_retrieval::http_router(retrievers))
        .layer(axum::extract::DefaultBodyLimit::max(args.max_body_bytes))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            args.max_body_bytes,
        ));
    let grace = Duration::from_secs(args.shutdown_grace_secs);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(args.sql_threads.max(1))
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen).await?;
        // The first line on stdout says where to connect (useful with port 0).
        println!("listening on http://{}", listener.local_addr()?);
        tracing::info!(
            "serving {} domains, {} endpoints on http://{addr} (ready in {:?}); MCP at /mcp/<capability>/<domain>; tools explorer at http://{addr}/explorer/",
            bird.domains().len(),
            bird.endpoints().len(),
            started.elapsed(),
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
        let serving = axum::serve(listener, app)
            .with_graceful_shutdown(stopping)
            .into_future();
        // A call that outlives the grace period (and the time to send the answers of the
        // others) would keep its connection, and the server, alive: it is cut off.
        let deadline = async move {
            match cut_off.await {
                Ok(()) => tokio::time::sleep(grace + ANSWER_TIME).await,
                Err(_) => std::future::pending().await,
            }
        };
        tokio::select! {
            served = serving => served?,
            () = deadline => tracing::warn!("calls still running {:?} after the signal; cut off", grace + ANSWER_TIME),
        }
        tracing::info!("stopped");
        anyhow::Ok(())
    })?;
    // Blocking tasks still running (a statement before its time limit) do not hold the exit.
    runtime.shutdown_timeout(ANSWER_TIME);
    Ok(())
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

/// glibc gives every thread that allocates its own malloc arena (up to 8 per core), which on a
/// busy server multiplies resident memory for no speed gain here; two arenas keep it flat.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes an allocator tunable; called before any thread is started.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
