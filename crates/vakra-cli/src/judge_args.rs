//! How samples are judged, as flags shared by `vakra eval` and the RL episodes of
//! `vakra serve --episodes`: the same flags give the same verdicts.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use vakra_catalog::files::{OPERATION_ID_MAPPINGS, POLICY_CATEGORIES};
use vakra_client::Connector;
use vakra_eval::Judging;
use vakra_eval::judges::GroundednessMode;
use vakra_eval::judges::exact::{ExactMode, Normalization};
use vakra_eval::judges::llm::{LlmClient, LlmConfig, Prompts};

#[derive(Args, Clone)]
pub struct JudgeArgs {
    /// How tool responses are compared: reference (the reference's string membership) or
    /// normalized (parsed values, order-invariant, numeric tolerance, field exclusions).
    #[arg(long = "exact-match", default_value = "reference")]
    exact_match: ExactMode,
    /// Normalized mode: fields left out of the comparison (repeatable; default: handle).
    #[arg(long = "ignore-field")]
    ignore_fields: Vec<String>,
    /// Normalized mode: relative tolerance for numbers.
    #[arg(long, default_value_t = 1e-6)]
    tolerance: f64,
    /// Run the policy judge on `additional_instructions` (the reference has none).
    #[arg(long = "policy-judge")]
    policy_judge: bool,
    /// Category → retriever domains for the policy judge (default:
    /// ROOT/retrievers/policy_categories.json when present).
    #[arg(long = "policy-categories")]
    policy_categories: Option<PathBuf>,
    /// OpenAI-compatible base URL of the judge LLM (…/v1). Without it answers are checked by
    /// the deterministic answer match. The reference uses https://api.groq.com/openai/v1.
    #[arg(long = "judge-url", env = "VAKRA_JUDGE_URL")]
    judge_url: Option<String>,
    /// The judge model.
    #[arg(
        long = "judge-model",
        env = "VAKRA_JUDGE_MODEL",
        default_value = "openai/gpt-oss-120b"
    )]
    judge_model: String,
    /// The environment variable holding the judge's API key (the reference reads API_KEY).
    #[arg(long = "judge-api-key-env", default_value = "API_KEY")]
    judge_api_key_env: String,
    /// The groundedness judge: llm (needs --judge-url) or deterministic (the answer's numbers,
    /// dates, yes/no and names must be in the prediction's own tool responses). Default: llm
    /// with --judge-url, else deterministic.
    #[arg(long)]
    groundedness: Option<GroundednessMode>,
    /// Seconds before a judge request is given up.
    #[arg(long = "judge-timeout-secs", default_value_t = 120)]
    judge_timeout_secs: u64,
    /// Legacy operation id → tool name maps (default: ROOT/mappings/all_operation_id_mappings.json,
    /// which `vakra import` copies, when present).
    #[arg(long = "operation-id-map")]
    operation_id_map: Option<PathBuf>,
    /// Seconds a replayed call (or opening a session) may take.
    #[arg(long = "call-timeout-secs", default_value = "60", value_parser = crate::parse_seconds,
          allow_negative_numbers = true)]
    call_timeout_secs: Duration,
}

impl JudgeArgs {
    /// How long a replayed call (or opening a session) may take.
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout_secs
    }

    /// The judging settings these flags give, replaying through `connector` and reading the
    /// defaults (policy categories, operation-id maps, judge prompts) from the data root.
    pub fn judging(
        &self,
        connector: Connector,
        root: &Path,
        fix_quirks: bool,
        include_responses: bool,
    ) -> anyhow::Result<Judging> {
        let llm = match &self.judge_url {
            Some(url) => Some(
                LlmClient::new(LlmConfig {
                    base_url: url.clone(),
                    model: self.judge_model.clone(),
                    api_key: std::env::var(&self.judge_api_key_env)
                        .ok()
                        .filter(|k| !k.is_empty()),
                    timeout: Duration::from_secs(self.judge_timeout_secs.max(1)),
                    retries: 2,
                    lenient_json: fix_quirks,
                })
                .map_err(anyhow::Error::msg)?,
            ),
            None => None,
        };
        let groundedness = match (self.groundedness, &llm) {
            (Some(GroundednessMode::Llm), None) => {
                anyhow::bail!("--groundedness llm needs an LLM judge (--judge-url)")
            }
            (Some(mode), _) => mode,
            (None, Some(_)) => GroundednessMode::Llm,
            (None, None) => GroundednessMode::Deterministic,
        };
        let mut normalization = Normalization {
            tolerance: self.tolerance,
            ..Normalization::default()
        };
        if !self.ignore_fields.is_empty() {
            normalization.excluded_fields = self.ignore_fields.clone();
        }
        Ok(Judging {
            connector,
            exact_mode: self.exact_match,
            normalization,
            policy_judge: self.policy_judge,
            policy_categories: policy_categories(self.policy_categories.as_deref(), root)?,
            llm,
            groundedness,
            prompts: Prompts::load(root).map_err(anyhow::Error::msg)?,
            legacy_operation_ids: operation_ids(self.operation_id_map.as_deref(), root)?,
            call_timeout: self.call_timeout_secs,
            fix_quirks,
            include_responses,
            ground_truth_memo: None,
        })
    }
}

fn policy_categories(
    given: Option<&Path>,
    root: &Path,
) -> anyhow::Result<BTreeMap<String, Vec<String>>> {
    let default = POLICY_CATEGORIES.path(root);
    let path = match given {
        Some(path) => path.to_owned(),
        None if default.exists() => default,
        None => return Ok(BTreeMap::new()),
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: expected {{\"<category>\": [\"<domain>\", …]}}",
            path.display()
        )
    })
}

fn operation_ids(given: Option<&Path>, root: &Path) -> anyhow::Result<HashMap<String, String>> {
    let default = OPERATION_ID_MAPPINGS.path(root);
    match given {
        Some(path) => vakra_eval::read_operation_id_map(path).map_err(anyhow::Error::msg),
        None if default.exists() => {
            vakra_eval::read_operation_id_map(&default).map_err(anyhow::Error::msg)
        }
        None => Ok(HashMap::new()),
    }
}
