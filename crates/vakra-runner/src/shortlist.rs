//! Tool shortlisting (spec §6.3): when a session lists more tools than the model may be
//! offered (`--top-k-tools`, 128 by default, the common provider limit), the model sees the
//! `k` tools closest to the question. As the reference's shortlister: tools whose name starts
//! with `query_` (capability 4's document search) are always kept, listed first; the other places
//! go to the best-ranked tools; when they all fit, the pinned tools come first and the others
//! follow in listing order.
//!
//! The default ranking is the reference's: cosine similarity of all-MiniLM-L6-v2 embeddings of
//! `"<name>: <description>"` (the description as the reference's wrapper gives it) with the
//! question's, in float32, the best first; equal scores in reverse listing order, as numpy's
//! `argsort(...)[::-1]` leaves them for a stable sort (numpy's own sort is not stable, so true
//! ties may come out otherwise there; `docs/compatibility.md`). The model folder is found when
//! a domain first needs a shortlist (`vakra_embed::locate`), and tool embeddings are
//! kept per text. BM25 over the same texts is an explicit choice (`--shortlist bm25`): no
//! model, but not the reference's ranking.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

pub use vakra_embed::ModelInfo;

/// A tool as the shortlist sees it.
pub struct ToolText<'a> {
    pub name: &'a str,
    pub description: &'a str,
}

impl ToolText<'_> {
    /// What the reference embeds: `"<name>: <description>"`.
    fn text(&self) -> String {
        format!("{}: {}", self.name, self.description)
    }
}

/// How tools are ranked against a question.
pub enum Ranker {
    Bm25,
    Embeddings(Arc<Embeddings>),
}

/// The reference's model, found and loaded when first needed, and the embeddings of the tool
/// texts seen so far.
pub struct Embeddings {
    explicit: Option<PathBuf>,
    model: OnceLock<Result<(vakra_embed::Embedder, ModelInfo), String>>,
    known: Mutex<HashMap<String, Arc<[f32]>>>,
}

impl Embeddings {
    /// The reference's shortlist model, from `explicit` (a flag) or the lookup's other places.
    pub fn new(explicit: Option<PathBuf>) -> Self {
        Self {
            explicit,
            model: OnceLock::new(),
            known: Mutex::new(HashMap::new()),
        }
    }

    /// Finds and loads the model now (for a model given by a flag, so a wrong folder stops the
    /// run at its start).
    pub fn load(&self) -> Result<&ModelInfo, String> {
        self.model().map(|(_, info)| info)
    }

    /// The model, when it was loaded.
    pub fn loaded(&self) -> Option<&ModelInfo> {
        self.model
            .get()
            .and_then(|m| m.as_ref().ok())
            .map(|(_, info)| info)
    }

    fn model(&self) -> Result<&(vakra_embed::Embedder, ModelInfo), String> {
        self.model
            .get_or_init(|| {
                let model = &vakra_embed::SHORTLIST_MODEL;
                let (embedder, info) = vakra_embed::load(model, self.explicit.as_deref())
                    .map_err(|e| e.to_string())?;
                tracing::info!(
                    "shortlist model {} from {} ({})",
                    info.model,
                    info.folder,
                    info.source
                );
                Ok((embedder, info))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Cosine similarity (float32, vectors normalised here as the reference does) of each
    /// text's embedding with the query's.
    fn scores(&self, query: &str, texts: &[String]) -> Result<Vec<f32>, String> {
        let (embedder, _) = self.model()?;
        let missing: Vec<&str> = {
            let known = self.known.lock().map_err(|_| "embedding cache poisoned")?;
            let mut missing: Vec<&str> = texts
                .iter()
                .map(String::as_str)
                .filter(|t| !known.contains_key(*t))
                .collect();
            missing.sort_unstable();
            missing.dedup();
            missing
        };
        let mut batch = vec![query];
        batch.extend(&missing);
        let mut vectors = embedder
            .embed(&batch)
            .map_err(|e| e.to_string())?
            .into_iter();
        let question = unit(&vectors.next().unwrap_or_default());
        let mut known = self.known.lock().map_err(|_| "embedding cache poisoned")?;
        for (text, vector) in missing.into_iter().zip(vectors) {
            known.insert(text.to_owned(), unit(&vector).into());
        }
        Ok(texts
            .iter()
            .map(|t| {
                known.get(t).map_or(0.0, |v| {
                    v.iter().zip(&question).map(|(a, b)| a * b).sum::<f32>()
                })
            })
            .collect())
    }
}

/// `v / ‖v‖` in float32 (a zero vector stays zero).
fn unit(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let norm = if norm == 0.0 { 1.0 } else { norm };
    v.iter().map(|x| x / norm).collect()
}

impl Ranker {
    /// The ranking's name for the run's record.
    pub fn method(&self) -> &'static str {
        match self {
            Ranker::Bm25 => "bm25",
            Ranker::Embeddings(_) => "embeddings",
        }
    }

    /// The indices of the tools offered to the model, in the order they are offered.
    /// Everything is kept when `top_k` is 0 or not below the number of tools.
    pub fn shortlist(
        &self,
        query: &str,
        tools: &[ToolText<'_>],
        top_k: usize,
    ) -> Result<Vec<usize>, String> {
        if top_k == 0 || top_k >= tools.len() {
            return Ok((0..tools.len()).collect());
        }
        let (mut chosen, others): (Vec<usize>, Vec<usize>) =
            (0..tools.len()).partition(|&i| tools[i].name.starts_with("query_"));
        let slots = top_k.saturating_sub(chosen.len());
        if slots == 0 || others.is_empty() {
            return Ok(chosen);
        }
        if slots >= others.len() {
            chosen.extend(others);
            return Ok(chosen);
        }
        let texts: Vec<String> = others.iter().map(|&i| tools[i].text()).collect();
        let scores: Vec<f64> = match self {
            Ranker::Bm25 => bm25_scores(query, &texts),
            Ranker::Embeddings(embeddings) => embeddings
                .scores(query, &texts)?
                .into_iter()
                .map(f64::from)
                .collect(),
        };
        // numpy's argsort, ascending and stable, then reversed: the best first, equal scores
        // in reverse listing order.
        let mut order: Vec<usize> = (0..others.len()).collect();
        order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
        chosen.extend(order.into_iter().rev().take(slots).map(|j| others[j]));
        Ok(chosen)
    }
}

/// Lower-cased alphanumeric words (so `get_count_by_year` is `get`, `count`, `by`, `year`).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Okapi BM25 (k1 = 1.2, b = 0.75) of each document for the query.
fn bm25_scores(query: &str, documents: &[String]) -> Vec<f64> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let docs: Vec<HashMap<String, usize>> = documents
        .iter()
        .map(|d| {
            let mut counts = HashMap::new();
            for w in words(d) {
                *counts.entry(w).or_insert(0) += 1;
            }
            counts
        })
        .collect();
    let lengths: Vec<f64> = documents.iter().map(|d| words(d).count() as f64).collect();
    let average = (lengths.iter().sum::<f64>() / lengths.len().max(1) as f64).max(1.0);
    let mut query_words: Vec<String> = words(query).collect();
    query_words.sort();
    query_words.dedup();
    let n = docs.len() as f64;
    let mut scores = vec![0.0; docs.len()];
    for word in &query_words {
        let df = docs.iter().filter(|d| d.contains_key(word)).count() as f64;
        if df == 0.0 {
            continue;
        }
        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
        for (i, doc) in docs.iter().enumerate() {
            if let Some(&tf) = doc.get(word) {
                let tf = tf as f64;
                scores[i] +=
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * lengths[i] / average));
            }
        }
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(names: &[(&'static str, &'static str)]) -> Vec<ToolText<'static>> {
        names
            .iter()
            .map(|(name, description)| ToolText { name, description })
            .collect()
    }

    #[test]
    fn retriever_tools_stay_and_the_closest_tools_fill_the_rest() {
        let list = tools(&[
            ("get_players_by_team", "Players of a team."),
            ("query_hockey", "Search hockey documents."),
            (
                "get_goals_by_season",
                "Goals scored in a season by a player.",
            ),
            ("get_arena_capacity", "Seats of an arena."),
            ("query_address", "Search address documents."),
        ]);
        let chosen = Ranker::Bm25
            .shortlist("How many goals did the player score that season?", &list, 3)
            .unwrap();
        assert_eq!(chosen, [1, 4, 2]);
        assert_eq!(Ranker::Bm25.shortlist("goals", &list, 2).unwrap(), [1, 4]);
        assert_eq!(
            Ranker::Bm25.shortlist("x", &list, 0).unwrap(),
            [0, 1, 2, 3, 4]
        );
        assert_eq!(
            Ranker::Bm25.shortlist("x", &list, 5).unwrap(),
            [0, 1, 2, 3, 4]
        );
    }

    #[test]
    fn the_right_tool_survives_among_hundreds() {
        let names: Vec<(String, String)> = (0..300)
            .map(|i| {
                (
                    format!("get_metric_{i}_v1_domain_metric_{i}_get"),
                    format!("Metric number {i} of the domain."),
                )
            })
            .chain([(
                "get_total_rainfall_by_station".to_owned(),
                "Total rainfall recorded at a weather station in a year.".to_owned(),
            )])
            .collect();
        let list: Vec<ToolText<'_>> = names
            .iter()
            .map(|(n, d)| ToolText {
                name: n,
                description: d,
            })
            .collect();
        let chosen = Ranker::Bm25
            .shortlist(
                "What was the total rainfall at the station in 2020?",
                &list,
                128,
            )
            .unwrap();
        assert_eq!(chosen.len(), 128);
        assert_eq!(chosen[0], 300, "the matching tool ranks first");
    }

    /// The reference's method with the MiniLM test model (`make test` fetches it).
    #[test]
    fn embeddings_rank_the_tool_that_means_the_question() {
        let Some(dir) = std::env::var_os("VAKRA_MINILM_DIR") else {
            assert!(
                std::env::var_os("VAKRA_REQUIRE_MODEL").is_none(),
                "VAKRA_REQUIRE_MODEL is set but VAKRA_MINILM_DIR is not"
            );
            eprintln!("skipped: set VAKRA_MINILM_DIR to the all-MiniLM-L6-v2 folder");
            return;
        };
        let ranker = Ranker::Embeddings(Arc::new(Embeddings::new(Some(dir.into()))));
        let list = tools(&[
            ("get_arena_capacity", "Number of seats in a sports arena."),
            ("query_hockey", "Search hockey documents."),
            (
                "get_precipitation_total",
                "Total rainfall measured at a weather station.",
            ),
            ("get_player_salary", "Yearly wage of a hockey player."),
            ("get_library_loans", "Books lent by a library branch."),
        ]);
        let chosen = ranker
            .shortlist("How much did it rain at the station last year?", &list, 2)
            .unwrap();
        assert_eq!(chosen, [1, 2], "query_ pinned, then the closest in meaning");
    }
}
