//! `vakra serve --episodes SPLIT`: the split's samples as reinforcement-learning episodes over
//! OpenEnv's protocol, at `/openenv` (docs/rl.md).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use vakra_client::{Connector, InProcess};
use vakra_episodes::{EpisodeLimits, EpisodeSetup, RewardMode, Split};
use vakra_eval::GroundTruthMemo;
use vakra_mcp::ServerOptions;

#[derive(Args)]
#[command(next_help_heading = "Episodes (--episodes)")]
pub struct EpisodeArgs {
    /// Serve reinforcement-learning episodes of this split (`capability_<n>_<name>/{input,output}`)
    /// over OpenEnv's protocol at /openenv (docs/rl.md).
    #[arg(long, value_name = "SPLIT")]
    episodes: Option<PathBuf>,
    /// The reward: binary (`vakra eval`'s verdict) or partial (the fraction of the ground
    /// truth's tool responses recovered).
    #[arg(long, default_value = "binary")]
    reward: RewardMode,
    /// Episodes (WebSocket connections) open at once; more are refused with CAPACITY_REACHED.
    #[arg(long = "max-episodes", default_value_t = 1024)]
    max_episodes: usize,
    /// Episodes one client address holds open at once; more are refused with CAPACITY_REACHED
    /// (default: half of --max-episodes).
    #[arg(long = "max-client-episodes")]
    max_client_episodes: Option<usize>,
    /// Actions after which an episode ends unanswered (judged with an empty answer).
    #[arg(long = "episode-max-steps", default_value_t = 100)]
    episode_max_steps: usize,
    /// Seconds an episode connection may stay silent (or leave an answer unread) before it is
    /// closed.
    #[arg(long = "episode-idle-secs", default_value = "600", value_parser = crate::parse_seconds)]
    episode_idle: Duration,
    #[command(flatten)]
    shown_limit: crate::input_limits::ShownLimitArg,
    #[command(flatten)]
    judge: crate::judge_args::JudgeArgs,
}

impl EpisodeArgs {
    /// The routes to mount at /openenv, when episodes were asked for.
    pub fn router(
        &self,
        options: &ServerOptions,
        max_message_bytes: usize,
    ) -> anyhow::Result<Option<axum::Router>> {
        let Some(path) = &self.episodes else {
            return Ok(None);
        };
        anyhow::ensure!(self.max_episodes > 0, "--max-episodes must be at least 1");
        anyhow::ensure!(
            self.episode_max_steps > 0,
            "--episode-max-steps must be at least 1"
        );
        self.shown_limit.install();
        let split = Split::load(path)?;
        for skipped in &split.skipped {
            tracing::warn!("episodes: {skipped}");
        }
        let connector = Connector::InProcess(Arc::new(InProcess::new(options.clone())));
        let root = options.root.path().to_owned();
        let mut judging = self
            .judge
            .judging(connector.clone(), &root, options.fix_quirks, true)?;
        // Every trajectory of a sample is judged against the same ground truth, whose replay
        // on the project's own servers gives the same answers each time.
        judging.ground_truth_memo = Some(GroundTruthMemo::default());
        tracing::info!(
            "episodes: {} samples of {} at /openenv (reward: {})",
            split.len(),
            path.display(),
            self.reward.as_str()
        );
        let setup = EpisodeSetup {
            split,
            connector,
            judging,
            prompts: vakra_runner::Prompts::load(&root).map_err(anyhow::Error::msg)?,
            fix_quirks: options.fix_quirks,
            call_timeout: self.judge.call_timeout(),
            max_steps: self.episode_max_steps,
            reward: self.reward,
        };
        let limits = EpisodeLimits {
            max_episodes: self.max_episodes,
            idle: self.episode_idle,
            max_message_bytes,
            max_client_episodes: self
                .max_client_episodes
                .unwrap_or(self.max_episodes / 2)
                .max(1),
        };
        Ok(Some(vakra_episodes::router(setup, limits)))
    }
}
