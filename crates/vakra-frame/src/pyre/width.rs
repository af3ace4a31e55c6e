//! `SubPattern.getwidth()`: the shortest and longest text a pattern can match, which decides
//! whether a lookbehind is fixed-width.

use super::tree::{MAXREPEAT, MAXWIDTH, Node};

/// `(min, max)` width of a sequence, saturating at 2**64 as Python does.
pub(super) fn width(nodes: &[Node], groups: &[(u128, u128)]) -> (u128, u128) {
    let (mut lo, mut hi) = (0u128, 0u128);
    for node in nodes {
        match node {
            Node::Branch(items) => {
                let mut i = MAXWIDTH;
                let mut j = 0;
                for item in items {
                    let (l, h) = width(item, groups);
                    i = i.min(l);
                    j = j.max(h);
                }
                lo = lo.saturating_add(i);
                hi = hi.saturating_add(j);
            }
            Node::Atomic(body) | Node::Group { body, .. } => {
                let (i, j) = width(body, groups);
                lo = lo.saturating_add(i);
                hi = hi.saturating_add(j);
            }
            Node::Repeat { min, max, body, .. } => {
                let (i, j) = width(body, groups);
                lo = lo.saturating_add(i.saturating_mul(u128::from(*min)));
                if *max == MAXREPEAT && j != 0 {
                    hi = MAXWIDTH;
                } else {
                    hi = hi.saturating_add(j.saturating_mul(u128::from(*max)));
                }
            }
            Node::Literal(_) | Node::NotLiteral(_) | Node::Any | Node::In { .. } => {
                lo = lo.saturating_add(1);
                hi = hi.saturating_add(1);
            }
            Node::GroupRef(g) => {
                let (i, j) = groups.get(*g).copied().unwrap_or((0, 0));
                lo = lo.saturating_add(i);
                hi = hi.saturating_add(j);
            }
            Node::GroupRefExists { yes, no, .. } => {
                let (mut i, mut j) = width(yes, groups);
                match no {
                    Some(no) => {
                        let (l, h) = width(no, groups);
                        i = i.min(l);
                        j = j.max(h);
                    }
                    None => i = 0,
                }
                lo = lo.saturating_add(i);
                hi = hi.saturating_add(j);
            }
            Node::At(_) | Node::Assert { .. } => {}
        }
    }
    (lo.min(MAXWIDTH), hi.min(MAXWIDTH))
}
