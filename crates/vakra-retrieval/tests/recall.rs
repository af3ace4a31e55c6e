//! Recall@10 on the demo questions: each needs an API hop and a document hop, and the document
//! hop must find the gold chunk among the first ten results of the question's own domain.

use crate::common::{RetrievalRoot, demo_questions, result_ids};
use serde_json::json;
use vakra_retrieval::{Retrievers, build_indexes};
use vakra_test_kit::root::TempRoot;
use vakra_test_kit::text::args;

fn recall_at_10(retrievers: &Retrievers) -> (usize, usize, Vec<String>) {
    let questions = demo_questions();
    let mut misses = Vec::new();
    let mut first = 0;
    for (domain, question, gold) in &questions {
        let (text, is_error) = retrievers
            .call(
                domain,
                &format!("query_{domain}"),
                &args(json!({"question": question})),
            )
            .expect("a retriever tool of the domain");
        assert!(!is_error, "{text}");
        let ids = result_ids(&text);
        assert_eq!(ids.len(), 10);
        if !ids.contains(gold) {
            misses.push(format!("{question} -> {gold} not in {ids:?}"));
        }
        first += usize::from(ids.first() == Some(gold));
    }
    eprintln!("gold document ranked first: {first}/{}", questions.len());
    (questions.len() - misses.len(), questions.len(), misses)
}

#[test]
fn bm25_finds_the_gold_document_of_every_demo_question() {
    let root = TempRoot::new().with_demo_data();
    build_indexes(&root.data_root(), false).expect("build");
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let (found, total, misses) = recall_at_10(&retrievers);
    eprintln!("BM25 recall@10 on the demo questions: {found}/{total}");
    assert!(total >= 20, "the demo has {total} questions");
    assert_eq!(found, total, "misses: {misses:#?}");
}

mod dense {
    use vakra_retrieval::{
        BuildOptions, RetrieverOptions, Retrievers, SearchMode, build_indexes_with,
    };

    use super::TempRoot;
    use super::recall_at_10;
    use crate::common::RetrievalRoot;
    use vakra_test_kit::model::minilm_dir;

    #[test]
    fn dense_and_hybrid_find_the_gold_documents() {
        let Some(model) = minilm_dir() else { return };
        let root = TempRoot::new().with_demo_data();
        let report = build_indexes_with(
            &root.data_root(),
            &BuildOptions {
                progress: false,
                embedding_model: Some(model.clone()),
            },
        )
        .expect("build");
        assert!(report.domains.iter().all(|d| d.dense));
        for (mode, minimum) in [(SearchMode::Hybrid, 1.0), (SearchMode::Dense, 0.8)] {
            let retrievers = Retrievers::open_with(
                &root.data_root(),
                RetrieverOptions {
                    mode: Some(mode),
                    embedding_model: Some(model.clone()),
                    ..RetrieverOptions::default()
                },
            )
            .expect("open");
            let (found, total, misses) = recall_at_10(&retrievers);
            eprintln!("{mode:?} recall@10 on the demo questions: {found}/{total}");
            assert!(
                found as f64 >= minimum * total as f64,
                "{mode:?}: {found}/{total}, misses: {misses:#?}"
            );
        }
        // Dense distances are squared L2 distances of unit vectors: within [0, 4].
        let retrievers = Retrievers::open_with(
            &root.data_root(),
            RetrieverOptions {
                mode: Some(SearchMode::Dense),
                embedding_model: Some(model),
                ..RetrieverOptions::default()
            },
        )
        .expect("open");
        let results = retrievers
            .query("weather", "Which station is the highest?", 3)
            .expect("query");
        assert!(results.iter().all(|r| (0.0..=4.0).contains(&r.distance)));
        assert!(results.windows(2).all(|w| w[0].distance <= w[1].distance));
    }

    #[test]
    fn dense_search_refuses_an_index_without_embeddings() {
        let Some(model) = minilm_dir() else { return };
        let root = TempRoot::new().with_demo_data();
        vakra_retrieval::build_indexes(&root.data_root(), false).expect("build");
        let retrievers = Retrievers::open_with(
            &root.data_root(),
            RetrieverOptions {
                mode: Some(SearchMode::Hybrid),
                embedding_model: Some(model),
                ..RetrieverOptions::default()
            },
        )
        .expect("open");
        let error = retrievers
            .query("library", "branch", 3)
            .expect_err("no vectors");
        assert!(
            error.to_string().contains("no document embeddings"),
            "{error}"
        );
    }
}
