//! How every tool call runs, whatever its server: one at a time per session, its blocking work
//! off the async workers, under the per-call time limit (`--call-time-limit`), and stopped when
//! its client goes away.
//!
//! [`SessionCalls::run`] wraps a server's `call_tool`. A call first waits for its session's turn
//! (asynchronously: a queued call holds no thread), then the server's code hands its blocking
//! work to [`blocking`], which runs it on a blocking thread with the call's
//! [`Interrupt`](vakra_interrupt::Interrupt) current (long loops check it and give up) and the
//! session's turn held until the work really ends, so that one session never occupies more
//! than one blocking thread. Before it takes a thread, the work enters a lane of the process's
//! tool-call [`Lanes`] (`--sql-threads` of them, at most `--client-call-threads` per client
//! address): tool calls never hold more blocking threads than that, whatever the number of
//! sessions, so that REST requests and session openings, which have threads of their own, never
//! wait behind them, and one client's calls never keep another's from their turn. When the time limit passes first, the caller gets
//! [`time_limit_text`] at once; when the request is cancelled (the client sent
//! `notifications/cancelled`, closed its session or its stdin), the work is told to stop.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CallToolResult};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use vakra_interrupt::Interrupt;
use vakra_lanes::{Client, Lanes};

/// The context a call's blocking work inherits.
#[derive(Clone)]
struct CallScope {
    interrupt: Interrupt,
    lanes: Arc<Lanes>,
    client: Option<Client>,
    /// The session's turn; released when the async call and its blocking work both ended.
    _turn: Arc<OwnedSemaphorePermit>,
}

tokio::task_local! {
    static CALL: CallScope;
    /// The client on whose behalf sessions are being opened in-process (an RL episode's
    /// connection): see [`opened_by`].
    static OPENER: Opener;
}

#[derive(Clone)]
struct Opener {
    client: Option<Client>,
    gone: CancellationToken,
}

/// Runs `work` with the sessions it opens in-process (an episode's, the replays of its reward)
/// counted as `client`'s: their calls take `client`'s share of the tool-call lanes, as its
/// calls over HTTP do, and stop when `gone` is cancelled (the client left).
pub async fn opened_by<F: Future>(
    client: Option<Client>,
    gone: CancellationToken,
    work: F,
) -> F::Output {
    OPENER.scope(Opener { client, gone }, work).await
}

/// One session's queue of calls and the time limit of each.
#[derive(Clone)]
pub(crate) struct SessionCalls {
    turn: Arc<Semaphore>,
    limit: Duration,
    /// The process's lanes for the blocking work of tool calls.
    lanes: Arc<Lanes>,
    /// Whose share of the lanes the calls take when their request names no client (a session
    /// opened in-process for a client, [`opened_by`]).
    client: Option<Client>,
    /// Cancelled when the session's client is gone (stdin closed): every call stops.
    closed: CancellationToken,
}

impl SessionCalls {
    /// A queue for a new session, whose blocking work enters `lanes` (as the opener's, and
    /// stopped when it leaves, when a client's sessions are being opened in-process).
    pub(crate) fn new(limit: Duration, lanes: Arc<Lanes>) -> Self {
        let opener = OPENER.try_with(Opener::clone).ok();
        Self {
            turn: Arc::new(Semaphore::new(1)),
            limit,
            lanes,
            client: opener.as_ref().and_then(|o| o.client),
            closed: opener.map_or_else(CancellationToken::new, |o| o.gone),
        }
    }

    /// The same queue, whose calls also stop when `closed` is cancelled.
    pub(crate) fn closed_by(mut self, closed: CancellationToken) -> Self {
        self.closed = closed;
        self
    }

    /// An empty queue with the same limit, for another session.
    pub(crate) fn for_new_session(&self) -> Self {
        Self::new(self.limit, Arc::clone(&self.lanes))
    }

    /// Runs `call` of `client` in its turn within the time limit (the waits for the turn and
    /// for a lane included). A call over the limit is answered with [`time_limit_text`]; a
    /// cancelled one with an error nobody reads (rmcp drops answers to cancelled requests).
    pub(crate) async fn run(
        &self,
        cancelled: &CancellationToken,
        client: Option<Client>,
        call: impl Future<Output = Result<CallToolResponse, ErrorData>>,
    ) -> Result<CallToolResponse, ErrorData> {
        let interrupt = Interrupt::new(self.limit);
        // However this future ends (answered, timed out, dropped), the work is told to stop.
        struct StopOnDrop(Interrupt);
        impl Drop for StopOnDrop {
            fn drop(&mut self) {
                self.0.stop();
            }
        }
        let _stop = StopOnDrop(interrupt.clone());
        let turn = Arc::clone(&self.turn);
        let scoped = async {
            let Ok(turn) = turn.acquire_owned().await else {
                return Err(ErrorData::internal_error(
                    "the session's queue closed",
                    None,
                ));
            };
            let scope = CallScope {
                interrupt: interrupt.clone(),
                lanes: Arc::clone(&self.lanes),
                client: client.or(self.client),
                _turn: Arc::new(turn),
            };
            CALL.scope(scope, call).await
        };
        let deadline = tokio::time::Instant::from_std(interrupt.deadline());
        tokio::select! {
            answered = tokio::time::timeout_at(deadline, scoped) => match answered {
                // Work that noticed the deadline gave up with a text of its own: replaced.
                Ok(answer) if !interrupt.is_stopped() => answer,
                _ => Ok(CallToolResponse::Complete(CallToolResult::error(vec![
                    rmcp::model::ContentBlock::text(time_limit_text(self.limit)),
                ]))),
            },
            () = cancelled.cancelled() => {
                Err(ErrorData::internal_error("the request was cancelled", None))
            }
            () = self.closed.cancelled() => {
                Err(ErrorData::internal_error("the request was cancelled", None))
            }
        }
    }
}

/// What an agent reads when its call ran out of time.
pub(crate) fn time_limit_text(limit: Duration) -> String {
    format!(
        "Error: this call did not finish within {}, this server's time limit for one tool call \
         (--call-time-limit), and was stopped; ask for less work",
        seconds(limit)
    )
}

fn seconds(limit: Duration) -> String {
    let s = limit.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// Runs `work` on a blocking thread, as part of the current call when there is one (in a lane
/// of its client, its interrupt current, its session's turn and its lane held until `work`
/// returns, the digits of its big integers in force).
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, tokio::task::JoinError> {
    let scope = CALL.try_with(CallScope::clone).ok();
    let lane = match &scope {
        Some(scope) => Some(scope.lanes.enter(scope.client).await),
        None => None,
    };
    let digits = vakra_pytext::digits::current();
    tokio::task::spawn_blocking(move || {
        let _lane = lane;
        vakra_pytext::digits::scoped(digits, || match scope {
            Some(scope) => scope.interrupt.run(work),
            None => work(),
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn answer_text(answer: Result<CallToolResponse, ErrorData>) -> String {
        let Ok(CallToolResponse::Complete(result)) = answer else {
            panic!("not a complete answer");
        };
        result.content[0].as_text().unwrap().text.clone()
    }

    #[tokio::test]
    async fn work_over_the_limit_is_stopped_and_answered_at_the_limit() {
        let calls = SessionCalls::new(Duration::from_millis(200), Lanes::unshared("tests"));
        let started = Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        let answer = calls
            .run(&CancellationToken::new(), None, async {
                let stopped_after = blocking(move || {
                    let start = Instant::now();
                    while !vakra_interrupt::stopped() && start.elapsed() < Duration::from_secs(30) {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    let _ = tx.send(start.elapsed());
                })
                .await;
                let _ = stopped_after;
                Ok(CallToolResult::success(vec![]).into())
            })
            .await;
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(
            answer_text(answer),
            time_limit_text(Duration::from_millis(200))
        );
        let ran = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(
            ran < Duration::from_secs(2),
            "the work saw the deadline: {ran:?}"
        );
    }

    #[tokio::test]
    async fn a_session_runs_one_blocking_work_at_a_time() {
        let calls = SessionCalls::new(Duration::from_secs(10), Lanes::unshared("tests"));
        let running = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let most = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let one = || {
            let (running, most) = (Arc::clone(&running), Arc::clone(&most));
            let calls = calls.clone();
            async move {
                calls
                    .run(&CancellationToken::new(), None, async move {
                        blocking(move || {
                            use std::sync::atomic::Ordering::SeqCst;
                            let now = running.fetch_add(1, SeqCst) + 1;
                            most.fetch_max(now, SeqCst);
                            std::thread::sleep(Duration::from_millis(20));
                            running.fetch_sub(1, SeqCst);
                        })
                        .await
                        .unwrap();
                        Ok(CallToolResult::success(vec![]).into())
                    })
                    .await
            }
        };
        let answers = futures_util::future::join_all((0..4).map(|_| one())).await;
        assert!(answers.iter().all(Result::is_ok));
        assert_eq!(most.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_cancelled_call_stops_its_work() {
        let calls = SessionCalls::new(Duration::from_secs(30), Lanes::unshared("tests"));
        let cancelled = CancellationToken::new();
        let (tx, rx) = std::sync::mpsc::channel();
        let cancel = cancelled.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            cancel.cancel();
        });
        let answer = calls
            .run(&cancelled, None, async {
                blocking(move || {
                    let start = Instant::now();
                    while !vakra_interrupt::stopped() && start.elapsed() < Duration::from_secs(30) {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    let _ = tx.send(start.elapsed());
                })
                .await
                .unwrap();
                Ok(CallToolResult::success(vec![]).into())
            })
            .await;
        assert!(answer.is_err());
        let ran = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(ran < Duration::from_secs(2), "{ran:?}");
    }
}
