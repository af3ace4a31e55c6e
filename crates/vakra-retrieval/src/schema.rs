//! The tantivy schema of a domain index and its text analysis.

use tantivy::Index;
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer,
};

/// Name under which the analyzer is registered in every index.
const ANALYZER: &str = "vakra_en";

/// Short English function words that carry no topic. Agents ask questions ("what is the …"),
/// so these would otherwise add a posting-list scan each while barely moving BM25 scores.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from",
    "had", "has", "have", "how", "if", "in", "into", "is", "it", "its", "no", "not", "of", "on",
    "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
    "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with",
];

/// Fields of the index schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    /// The chunk id, stored and indexed untokenized.
    pub(crate) id: Field,
    /// The chunk text, stored and analysed (term frequencies, no positions).
    pub(crate) text: Field,
    /// The metadata object as compact JSON text, stored only.
    pub(crate) metadata: Field,
    /// Rank of the id in byte order: the deterministic tie-breaker of equal scores.
    pub(crate) ord: Field,
}

pub(crate) fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text_options = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqs),
        )
        .set_stored();
    let fields = Fields {
        id: builder.add_text_field("id", STRING | STORED),
        text: builder.add_text_field("text", text_options),
        metadata: builder.add_text_field("metadata", STORED),
        ord: builder.add_u64_field("ord", FAST),
    };
    (builder.build(), fields)
}

/// The fields of an opened index, or `None` when its schema is not this crate's.
pub(crate) fn fields_of(schema: &Schema) -> Option<Fields> {
    let fields = Fields {
        id: schema.get_field("id").ok()?,
        text: schema.get_field("text").ok()?,
        metadata: schema.get_field("metadata").ok()?,
        ord: schema.get_field("ord").ok()?,
    };
    let expected = self::schema().0;
    for name in ["id", "text", "metadata", "ord"] {
        let ours = expected.get_field(name).ok()?;
        let theirs = schema.get_field(name).ok()?;
        if expected.get_field_entry(ours) != schema.get_field_entry(theirs) {
            return None;
        }
    }
    Some(fields)
}

/// Unicode word tokens, lower-cased, folded to ASCII (`Montréal` matches `montreal`), English
/// stop words removed, Porter-stemmed (`stations` matches `station`).
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(StopWordFilter::remove(
            STOP_WORDS.iter().map(|w| (*w).to_owned()),
        ))
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Makes the analyzer known to an index (tokenizers are not persisted with the index).
pub(crate) fn register(index: &Index) {
    index.tokenizers().register(ANALYZER, analyzer());
}
