//! Fair admission of blocking work on a shared server.
//!
//! A [`Lanes`] is a fixed number of places for one kind of blocking work (tool calls, REST
//! requests), each kind with its own, so that one kind never waits behind another. Work enters
//! a lane before it takes a blocking thread and holds it until the work really ends (a
//! statement interrupted late included). A client (the address of its connection) holds at
//! most `per_client` lanes at once: its further work waits for one of its own lanes first,
//! then queues, in arrival order, for a lane of all; so the queue for lanes of all holds at
//! most `per_client` works of any client, and other clients' work gets its turn however much
//! one client sends. Work of no known client (in-process sessions, stdio) queues for lanes of
//! all only.
//!
//! [`Shares`] is the same rule for what a client holds rather than runs (connections, MCP
//! sessions, episodes): at most so many at once per client address, refused beyond.
//!
//! Waiting is asynchronous: queued work holds no thread. When work waits, the log says so
//! (at most once per [`LOG_EVERY`] for each kind), naming the flag that sets the limit.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The address of the client a request came from, put into the request's extensions by the
/// server that accepted its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Client(pub IpAddr);

/// How often, at most, a repeated warning is logged (that work of one kind waits, that
/// clients are refused).
pub const LOG_EVERY: Duration = Duration::from_secs(10);

/// The lanes of one kind of blocking work.
pub struct Lanes {
    /// What the work is, for the log (`tool calls`, `REST requests`).
    kind: &'static str,
    /// The flags that set the limits, for the log.
    flags: (&'static str, &'static str),
    total: usize,
    per_client: usize,
    all: Arc<Semaphore>,
    clients: Mutex<HashMap<IpAddr, Arc<Semaphore>>>,
    logged: Throttled,
}

/// A place in a lane: held while the work runs, freed on drop.
pub struct Lane {
    all: Option<OwnedSemaphorePermit>,
    client: Option<(IpAddr, Arc<Semaphore>, OwnedSemaphorePermit)>,
    lanes: Arc<Lanes>,
}

impl Lanes {
    /// `total` lanes for work of `kind`, at most `per_client` of them (at least 1, at most
    /// `total`) for one client; `flags` name the options that set the two numbers.
    pub fn new(
        kind: &'static str,
        flags: (&'static str, &'static str),
        total: usize,
        per_client: usize,
    ) -> Arc<Self> {
        let total = total.max(1);
        Arc::new(Self {
            kind,
            flags,
            total,
            per_client: per_client.clamp(1, total),
            all: Arc::new(Semaphore::new(total)),
            clients: Mutex::new(HashMap::new()),
            logged: Throttled::new(),
        })
    }

    /// Lanes for a process with one client (a command's own sessions): as many as tokio's
    /// default blocking pool, the bound before lanes existed.
    pub fn unshared(kind: &'static str) -> Arc<Self> {
        Self::new(kind, ("", ""), 512, 512)
    }

    /// The lanes of all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The most lanes one client holds at once.
    pub fn per_client(&self) -> usize {
        self.per_client
    }

    /// Lanes of all free now.
    pub fn free(&self) -> usize {
        self.all.available_permits()
    }

    /// Waits for a lane for work of `client` (its own share first, then a lane of all).
    pub async fn enter(self: &Arc<Self>, client: Option<Client>) -> Lane {
        let client = match client {
            Some(Client(address)) => {
                let own = {
                    let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
                    Arc::clone(
                        clients
                            .entry(address)
                            .or_insert_with(|| Arc::new(Semaphore::new(self.per_client))),
                    )
                };
                let permit = match Arc::clone(&own).try_acquire_owned() {
                    Ok(permit) => permit,
                    Err(_) => {
                        self.log_wait(|| {
                            format!(
                                "{address} holds all {} lanes one client may hold ({}); its \
                                 further {} wait",
                                self.per_client, self.flags.1, self.kind
                            )
                        });
                        Arc::clone(&own)
                            .acquire_owned()
                            .await
                            .expect("a client's semaphore is never closed")
                    }
                };
                Some((address, own, permit))
            }
            None => None,
        };
        let all = match Arc::clone(&self.all).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                self.log_wait(|| {
                    format!(
                        "all {} lanes for {} are busy ({}); further work waits its turn",
                        self.total, self.kind, self.flags.0
                    )
                });
                Arc::clone(&self.all)
                    .acquire_owned()
                    .await
                    .expect("the lanes' semaphore is never closed")
            }
        };
        Lane {
            all: Some(all),
            client,
            lanes: Arc::clone(self),
        }
    }

    fn log_wait(&self, message: impl FnOnce() -> String) {
        self.logged.warn(&message());
    }

    /// Clients with a share in use or awaited.
    #[cfg(test)]
    fn clients_known(&self) -> usize {
        self.clients.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// How many of something each client address holds, at most `per_client` each.
#[derive(Debug)]
pub struct Shares {
    per_client: usize,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One thing a client holds; given back on drop.
#[derive(Debug)]
pub struct Share {
    client: IpAddr,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Shares {
    /// At most `per_client` (at least 1) per client address.
    pub fn new(per_client: usize) -> Self {
        Self {
            per_client: per_client.max(1),
            held: Arc::default(),
        }
    }

    /// The most one client holds.
    pub fn per_client(&self) -> usize {
        self.per_client
    }

    /// One more for `client`, or `None` when it holds its share already.
    pub fn take(&self, Client(client): Client) -> Option<Share> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let count = held.entry(client).or_insert(0);
        if *count >= self.per_client {
            return None;
        }
        *count += 1;
        Some(Share {
            client,
            held: Arc::clone(&self.held),
        })
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = held.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.client);
            }
        }
    }
}

/// A warning logged at most once per interval, with the number of occurrences left out.
pub struct Throttled {
    state: Mutex<(Option<Instant>, u64)>,
}

impl Default for Throttled {
    fn default() -> Self {
        Self::new()
    }
}

impl Throttled {
    pub fn new() -> Self {
        Self {
            state: Mutex::new((None, 0)),
        }
    }

    /// Logs `message` unless a line was logged less than the interval ago; returns whether
    /// it was logged.
    pub fn warn(&self, message: &str) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if state
            .0
            .is_some_and(|last| now.duration_since(last) < LOG_EVERY)
        {
            state.1 += 1;
            return false;
        }
        let skipped = std::mem::take(&mut state.1);
        state.0 = Some(now);
        drop(state);
        if skipped > 0 {
            tracing::warn!("{message} ({skipped} more like it since the last such line)");
        } else {
            tracing::warn!("{message}");
        }
        true
    }
}

impl std::fmt::Debug for Lanes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lanes")
            .field("kind", &self.kind)
            .field("total", &self.total)
            .field("per_client", &self.per_client)
            .field("free", &self.free())
            .finish()
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        self.all.take();
        let Some((address, own, permit)) = self.client.take() else {
            return;
        };
        drop(permit);
        // The share of a client with no work left is forgotten (the map holds one reference,
        // `own` the other; waiters hold theirs).
        let mut clients = self.lanes.clients.lock().unwrap_or_else(|e| e.into_inner());
        if Arc::strong_count(&own) == 2 {
            clients.remove(&address);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn client(last: u8) -> Option<Client> {
        Some(Client(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))))
    }

    #[tokio::test]
    async fn one_client_holds_at_most_its_share() {
        let lanes = Lanes::new("tests", ("--a", "--b"), 4, 2);
        let first = lanes.enter(client(1)).await;
        let _second = lanes.enter(client(1)).await;
        // A third work of the same client waits although lanes of all are free.
        let third = tokio::time::timeout(Duration::from_millis(50), lanes.enter(client(1))).await;
        assert!(third.is_err(), "a client got more than its share");
        assert_eq!(lanes.free(), 2);
        // Another client enters at once.
        let _other = tokio::time::timeout(Duration::from_millis(50), lanes.enter(client(2)))
            .await
            .expect("another client waited behind the first");
        drop(first);
        let _third = tokio::time::timeout(Duration::from_secs(1), lanes.enter(client(1)))
            .await
            .expect("a freed share was not given back");
    }

    #[tokio::test]
    async fn queued_work_of_one_client_does_not_delay_another() {
        let lanes = Lanes::new("tests", ("--a", "--b"), 2, 1);
        let a = lanes.enter(client(1)).await;
        let b = lanes.enter(client(2)).await;
        // Client 1 queues many works; client 3 arrives after them.
        let mut queued = Vec::new();
        for _ in 0..20 {
            let lanes = Arc::clone(&lanes);
            queued.push(tokio::spawn(async move {
                let _lane = lanes.enter(client(1)).await;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }));
        }
        tokio::task::yield_now().await;
        let later = {
            let lanes = Arc::clone(&lanes);
            tokio::spawn(async move { lanes.enter(client(3)).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(b);
        // Client 3 gets the freed lane: client 1's queued works wait for its own share.
        let lane = tokio::time::timeout(Duration::from_secs(1), later)
            .await
            .expect("client 3 waited behind client 1's queue")
            .unwrap();
        drop(lane);
        drop(a);
        for work in queued {
            work.await.unwrap();
        }
        assert_eq!(lanes.free(), 2);
        assert_eq!(lanes.clients_known(), 0, "idle clients are forgotten");
    }

    #[test]
    fn repeated_warnings_are_logged_once_per_interval() {
        let throttled = Throttled::new();
        let logged = (0..1000).filter(|_| throttled.warn("refused")).count();
        assert_eq!(logged, 1);
    }

    #[test]
    fn shares_are_counted_per_client_and_given_back() {
        let shares = Shares::new(2);
        let a = shares.take(client(1).unwrap()).unwrap();
        let _b = shares.take(client(1).unwrap()).unwrap();
        assert!(shares.take(client(1).unwrap()).is_none());
        let _other = shares
            .take(client(2).unwrap())
            .expect("another client's share");
        drop(a);
        assert!(shares.take(client(1).unwrap()).is_some());
        drop(_other);
        assert_eq!(
            shares.held.lock().unwrap().len(),
            1,
            "a client holding nothing is forgotten"
        );
    }

    #[tokio::test]
    async fn work_of_no_client_takes_lanes_of_all_only() {
        let lanes = Lanes::new("tests", ("--a", "--b"), 2, 1);
        let _one = lanes.enter(None).await;
        let _two = lanes.enter(None).await;
        assert_eq!(lanes.free(), 0);
        let third = tokio::time::timeout(Duration::from_millis(50), lanes.enter(client(1))).await;
        assert!(third.is_err(), "more work than lanes ran at once");
    }
}
