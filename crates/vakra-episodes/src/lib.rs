//! The benchmark as a reinforcement-learning environment.
//!
//! A trainer resets an **episode** on one sample of a split ([`split`]): by uuid, or by a
//! seed (a deterministic pick, optionally among one capability's or domain's samples). The
//! episode ([`episode`]) opens a fresh MCP session of the sample's capability and domain —
//! the same in-process servers agents and the evaluator use, under the same limits — and does
//! what `vakra run`'s agent does before its model starts (capability 1's `get_data`, the first
//! messages, from [`vakra_runner::opening`]). Its actions are MCP's: list the tools, call one
//! (the session's answers, unchanged), and submit the answer, which ends the episode with the
//! **reward** of [`reward`]: the evaluator's verdict for the episode's trajectory against the
//! sample's ground truth, computed by [`vakra_eval::judge_sample`] exactly as `vakra eval`
//! computes it — or, as an option, the fraction of the ground truth's responses recovered.
//!
//! [`server`] speaks OpenEnv's protocol ([`protocol`]): a WebSocket at `<base>/ws` carrying
//! `reset`, `step`, `state`, `close` (and `mcp` JSON-RPC) messages, one episode per
//! connection, plus the HTTP endpoints OpenEnv servers offer (`/health`, `/metadata`,
//! `/schema`, `/state`, `/reset`, `/step`). `vakra serve --episodes SPLIT` mounts it at
//! `/openenv`.

pub mod episode;
pub mod protocol;
pub mod reward;
pub mod server;
pub mod split;

pub use episode::{Episode, EpisodeError, EpisodeSetup, Reset, Step};
pub use reward::{Reward, RewardMode};
pub use server::{Charged, EpisodeLimits, ReadCharge, router};
pub use split::{Split, SplitError, SplitSample};
