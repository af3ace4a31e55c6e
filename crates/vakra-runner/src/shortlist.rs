//! Tool shortlisting (spec §6.3): when a session lists more tools than the model may be
//! offered (`--top-k-tools`, 128 by default, the common provider limit), the model sees the
//! `k` tools closest to the question. Tools whose name starts with `query_` (capability 4's
//! document search) are always kept, listed first; the other places go to the best-ranked
//! tools, ties in listing order.
//!
//! The default ranking is BM25 over each tool's `name: description` (no model, no download);
//! with the `dense` feature and a local sentence-transformers folder it is the reference's:
//! cosine similarity of embeddings (all-MiniLM-L6-v2 in the reference).

use std::collections::HashMap;

/// A tool as the shortlist sees it.
pub struct ToolText<'a> {
    pub name: &'a str,
    pub description: &'a str,
}

/// How tools are ranked against a question.
pub enum Ranker {
    Bm25,
    #[cfg(feature = "dense")]
    Dense(std::sync::Arc<vakra_retrieval::Embedder>),
}

impl Ranker {
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
        let (pinned, others): (Vec<usize>, Vec<usize>) =
            (0..tools.len()).partition(|&i| tools[i].name.starts_with("query_"));
        let slots = top_k.saturating_sub(pinned.len());
        if slots == 0 {
            return Ok(pinned);
        }
        if slots >= others.len() {
            return Ok((0..tools.len()).collect());
        }
        let documents: Vec<String> = others
            .iter()
            .map(|&i| format!("{}: {}", tools[i].name, tools[i].description))
            .collect();
        let scores = match self {
            Ranker::Bm25 => bm25_scores(query, &documents),
            #[cfg(feature = "dense")]
            Ranker::Dense(embedder) => cosine_scores(embedder, query, &documents)?,
        };
        let mut order: Vec<usize> = (0..others.len()).collect();
        // Stable: equal scores keep the listing order.
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let mut chosen = pinned;
        chosen.extend(order.into_iter().take(slots).map(|j| others[j]));
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

/// Cosine similarity of each document's embedding with the query's (vectors L2-normalised
/// here, as the reference does whatever the model's own pooling).
#[cfg(feature = "dense")]
fn cosine_scores(
    embedder: &vakra_retrieval::Embedder,
    query: &str,
    documents: &[String],
) -> Result<Vec<f64>, String> {
    let mut texts: Vec<&str> = vec![query];
    texts.extend(documents.iter().map(String::as_str));
    let vectors = embedder.embed(&texts).map_err(|e| e.to_string())?;
    let unit = |v: &[f32]| {
        let norm = v
            .iter()
            .map(|x| f64::from(*x).powi(2))
            .sum::<f64>()
            .sqrt()
            .max(1e-12);
        v.iter().map(|x| f64::from(*x) / norm).collect::<Vec<f64>>()
    };
    let q = unit(&vectors[0]);
    Ok(vectors[1..]
        .iter()
        .map(|v| unit(v).iter().zip(&q).map(|(a, b)| a * b).sum())
        .collect())
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

    /// The reference's method with the MiniLM test model (`make test-dense` fetches it).
    #[cfg(feature = "dense")]
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
        let embedder = vakra_retrieval::Embedder::load(std::path::Path::new(&dir)).unwrap();
        let ranker = Ranker::Dense(std::sync::Arc::new(embedder));
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
