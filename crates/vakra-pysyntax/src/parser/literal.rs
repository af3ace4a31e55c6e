//! String literals: implicit concatenation and f-string fields.

use super::{PResult, Parser};
use crate::ast::{Constant, Expr, ExprKind, FStringPart, FormattedValue};
use crate::error::ParseError;
use crate::token::{FPiece, Field, Kw, StrLit, Tok, Tokenizer};

impl Parser<'_> {
    /// Adjacent string literals, concatenated as Python does: all bytes
    /// give bytes, any f-string gives an f-string, otherwise a string.
    #[inline(never)]
    pub(super) fn strings(&mut self) -> PResult<Expr> {
        let start = self.start();
        let mut pieces = Vec::new();
        while matches!(self.tok.kind, Tok::Str(_)) {
            let token = self.take()?;
            if let Tok::Str(literal) = token.kind {
                pieces.push((literal, token.span.start));
            }
        }
        let bytes = matches!(pieces.first(), Some((StrLit::Bytes(_), _)));
        if let Some((_, at)) = pieces
            .iter()
            .find(|(literal, _)| matches!(literal, StrLit::Bytes(_)) != bytes)
        {
            return Err(ParseError::new(
                *at,
                "cannot mix bytes and nonbytes literals",
            ));
        }
        let kind = if bytes {
            let mut value = Vec::new();
            for (literal, _) in pieces {
                if let StrLit::Bytes(chunk) = literal {
                    value.extend(chunk);
                }
            }
            ExprKind::Constant(Constant::Bytes(value))
        } else if pieces
            .iter()
            .any(|(literal, _)| matches!(literal, StrLit::FString(_)))
        {
            let mut parts = Vec::new();
            for (literal, _) in pieces {
                match literal {
                    StrLit::Str(text) => push_literal(&mut parts, text),
                    StrLit::FString(fpieces) => self.fstring_parts(fpieces, &mut parts)?,
                    StrLit::Bytes(_) => {}
                }
            }
            ExprKind::JoinedStr(parts)
        } else {
            let mut value = String::new();
            for (literal, _) in pieces {
                if let StrLit::Str(text) = literal {
                    value.push_str(&text);
                }
            }
            ExprKind::Constant(Constant::Str(value))
        };
        Ok(self.node(kind, start))
    }

    /// Appends scanned f-string pieces to `parts`, parsing each field.
    fn fstring_parts(&mut self, pieces: Vec<FPiece>, parts: &mut Vec<FStringPart>) -> PResult<()> {
        for piece in pieces {
            match piece {
                FPiece::Literal(text) => push_literal(parts, text),
                FPiece::Field(field) => {
                    if let Some(text) = &field.debug_text {
                        push_literal(parts, text.clone());
                    }
                    let value = self.field_expression(&field)?;
                    let format_spec = match field.spec {
                        Some(spec) => {
                            let mut spec_parts = Vec::new();
                            self.fstring_parts(spec, &mut spec_parts)?;
                            Some(spec_parts)
                        }
                        None => None,
                    };
                    parts.push(FStringPart::Formatted(FormattedValue {
                        value: Box::new(value),
                        conversion: field.conversion,
                        format_spec,
                    }));
                }
            }
        }
        Ok(())
    }

    /// Parses the expression text of a field, as if parenthesized.
    fn field_expression(&mut self, field: &Field) -> PResult<Expr> {
        let lexer = Tokenizer::for_field(self.src, field.start, field.end);
        let mut sub = Parser::new(lexer, self.depth)?;
        let value = if sub.at_kw(Kw::Yield) {
            sub.yield_expr()?
        } else {
            sub.expr_list(Self::star_named_expression)?
        };
        if !sub.at(&Tok::End) {
            return Err(sub.expected("the end of the f-string expression"));
        }
        Ok(value)
    }
}

/// Appends literal text, merging it into a preceding literal and dropping
/// it when empty, as CPython builds `JoinedStr` values.
fn push_literal(parts: &mut Vec<FStringPart>, text: String) {
    if text.is_empty() {
        return;
    }
    if let Some(FStringPart::Literal(last)) = parts.last_mut() {
        last.push_str(&text);
    } else {
        parts.push(FStringPart::Literal(text));
    }
}
