//! A reader for the pickles Chroma writes beside an HNSW index (`index_metadata.pickle`):
//! Python 3's pickle protocols 2–5 for the values that file holds — dictionaries, lists, tuples,
//! strings, integers, floats, booleans, `None` — and class instances, read as their state (the
//! Python stack of Chroma 0.x pickles a `PersistentData` object, the Rust one of Chroma 1.x a
//! plain dictionary). Nothing is executed: a class is only a name.

/// A decoded value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pickled {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Pickled>),
    Dict(Vec<(Pickled, Pickled)>),
    /// An instance of a class (its `module.name`) with the state `__setstate__` would get.
    Object {
        class: String,
        state: Box<Pickled>,
    },
    /// A class named by `GLOBAL`, before it is called.
    Class(String),
}

impl Pickled {
    /// The value under the string key `key` of a dictionary, or of an object's state.
    pub(crate) fn get(&self, key: &str) -> Option<&Pickled> {
        match self {
            Pickled::Dict(items) => items
                .iter()
                .find(|(k, _)| matches!(k, Pickled::Str(s) if s == key))
                .map(|(_, v)| v),
            Pickled::Object { state, .. } => state.get(key),
            _ => None,
        }
    }
}

/// Deepest nesting of marks accepted; Chroma's pickles are two deep.
const MAX_DEPTH: usize = 64;

#[derive(Debug)]
enum Slot {
    Value(Pickled),
    Mark,
}

/// Decodes one pickle. Errors name the byte offset and what was wrong.
pub(crate) fn parse(bytes: &[u8]) -> Result<Pickled, String> {
    let mut reader = Reader { bytes, at: 0 };
    let mut stack: Vec<Slot> = Vec::new();
    let mut memo: Vec<Option<Pickled>> = Vec::new();
    loop {
        let at = reader.at;
        let op = reader.byte()?;
        let fail = |what: &str| format!("byte {at}: opcode 0x{op:02x}: {what}");
        match op {
            0x80 => {
                let protocol = reader.byte()?;
                if !(2..=5).contains(&protocol) {
                    return Err(fail(&format!("protocol {protocol} is not supported")));
                }
            }
            0x95 => {
                reader.take(8)?;
            }
            b'.' => {
                return match (stack.pop(), stack.is_empty()) {
                    (Some(Slot::Value(value)), true) => Ok(value),
                    _ => Err(fail("the stack does not end with one value")),
                };
            }
            b'(' => {
                if stack.iter().filter(|s| matches!(s, Slot::Mark)).count() >= MAX_DEPTH {
                    return Err(fail("nested too deeply"));
                }
                stack.push(Slot::Mark);
            }
            b'N' => push(&mut stack, Pickled::None)?,
            0x88 => push(&mut stack, Pickled::Bool(true))?,
            0x89 => push(&mut stack, Pickled::Bool(false))?,
            b'J' => {
                let n = i32::from_le_bytes(reader.array()?);
                push(&mut stack, Pickled::Int(i64::from(n)))?;
            }
            b'K' => push(&mut stack, Pickled::Int(i64::from(reader.byte()?)))?,
            b'M' => {
                let n = u16::from_le_bytes(reader.array()?);
                push(&mut stack, Pickled::Int(i64::from(n)))?;
            }
            0x8a => {
                let len = usize::from(reader.byte()?);
                let digits = reader.take(len)?;
                push(
                    &mut stack,
                    Pickled::Int(long(digits).ok_or_else(|| fail("too large"))?),
                )?;
            }
            b'G' => {
                let n = f64::from_be_bytes(reader.array()?);
                push(&mut stack, Pickled::Float(n))?;
            }
            b'X' | 0x8c | 0x8d => {
                let len = match op {
                    b'X' => u32::from_le_bytes(reader.array()?) as usize,
                    0x8c => usize::from(reader.byte()?),
                    _ => usize::try_from(u64::from_le_bytes(reader.array()?))
                        .map_err(|_| fail("too long"))?,
                };
                let text = std::str::from_utf8(reader.take(len)?)
                    .map_err(|_| fail("not UTF-8"))?
                    .to_owned();
                push(&mut stack, Pickled::Str(text))?;
            }
            b'C' | b'B' | 0x8e => {
                let len = match op {
                    b'C' => usize::from(reader.byte()?),
                    b'B' => u32::from_le_bytes(reader.array()?) as usize,
                    _ => usize::try_from(u64::from_le_bytes(reader.array()?))
                        .map_err(|_| fail("too long"))?,
                };
                push(&mut stack, Pickled::Bytes(reader.take(len)?.to_vec()))?;
            }
            b'}' => push(&mut stack, Pickled::Dict(Vec::new()))?,
            b']' | b')' => push(&mut stack, Pickled::List(Vec::new()))?,
            b'l' | b't' => {
                let items = since_mark(&mut stack).ok_or_else(|| fail("no mark"))?;
                push(&mut stack, Pickled::List(items))?;
            }
            0x85..=0x87 => {
                let n = usize::from(op - 0x84);
                if stack.len() < n {
                    return Err(fail("stack underflow"));
                }
                let items = stack
                    .split_off(stack.len() - n)
                    .into_iter()
                    .map(|slot| match slot {
                        Slot::Value(v) => Ok(v),
                        Slot::Mark => Err(fail("a mark inside a tuple")),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                push(&mut stack, Pickled::List(items))?;
            }
            b's' | b'u' => {
                let items = if op == b's' {
                    let value = pop(&mut stack).ok_or_else(|| fail("stack underflow"))?;
                    let key = pop(&mut stack).ok_or_else(|| fail("stack underflow"))?;
                    vec![key, value]
                } else {
                    since_mark(&mut stack).ok_or_else(|| fail("no mark"))?
                };
                if items.len() % 2 != 0 {
                    return Err(fail("a key without a value"));
                }
                let Some(Slot::Value(Pickled::Dict(dict))) = stack.last_mut() else {
                    return Err(fail("not a dictionary"));
                };
                let mut items = items.into_iter();
                while let (Some(key), Some(value)) = (items.next(), items.next()) {
                    dict.push((key, value));
                }
            }
            b'a' | b'e' => {
                let items = if op == b'a' {
                    vec![pop(&mut stack).ok_or_else(|| fail("stack underflow"))?]
                } else {
                    since_mark(&mut stack).ok_or_else(|| fail("no mark"))?
                };
                let Some(Slot::Value(Pickled::List(list))) = stack.last_mut() else {
                    return Err(fail("not a list"));
                };
                list.extend(items);
            }
            b'c' => {
                let module = reader.line()?;
                let name = reader.line()?;
                push(&mut stack, Pickled::Class(format!("{module}.{name}")))?;
            }
            0x93 => {
                let name = pop(&mut stack);
                let module = pop(&mut stack);
                match (module, name) {
                    (Some(Pickled::Str(module)), Some(Pickled::Str(name))) => {
                        push(&mut stack, Pickled::Class(format!("{module}.{name}")))?;
                    }
                    _ => return Err(fail("a class name is not two strings")),
                }
            }
            0x81 | b'R' => {
                let _arguments = pop(&mut stack).ok_or_else(|| fail("stack underflow"))?;
                match pop(&mut stack) {
                    Some(Pickled::Class(class)) => push(
                        &mut stack,
                        Pickled::Object {
                            class,
                            state: Box::new(Pickled::None),
                        },
                    )?,
                    _ => return Err(fail("not a class")),
                }
            }
            b'b' => {
                let new_state = pop(&mut stack).ok_or_else(|| fail("stack underflow"))?;
                let Some(Slot::Value(Pickled::Object { state, .. })) = stack.last_mut() else {
                    return Err(fail("not an object"));
                };
                **state = new_state;
            }
            0x94 => {
                let Some(Slot::Value(value)) = stack.last() else {
                    return Err(fail("nothing to memoize"));
                };
                memo.push(Some(value.clone()));
            }
            b'q' | b'r' => {
                let index = if op == b'q' {
                    usize::from(reader.byte()?)
                } else {
                    u32::from_le_bytes(reader.array()?) as usize
                };
                let Some(Slot::Value(value)) = stack.last() else {
                    return Err(fail("nothing to memoize"));
                };
                // A pickler numbers its memo from 0, one entry per opcode at most: a larger
                // index would only make this reader allocate for nothing.
                if index > bytes.len() {
                    return Err(fail("memo index out of range"));
                }
                if memo.len() <= index {
                    memo.resize(index + 1, None);
                }
                memo[index] = Some(value.clone());
            }
            b'h' | b'j' => {
                let index = if op == b'h' {
                    usize::from(reader.byte()?)
                } else {
                    u32::from_le_bytes(reader.array()?) as usize
                };
                let value = memo
                    .get(index)
                    .cloned()
                    .flatten()
                    .ok_or_else(|| fail("memo index out of range"))?;
                push(&mut stack, value)?;
            }
            _ => return Err(fail("not supported")),
        }
    }
}

fn push(stack: &mut Vec<Slot>, value: Pickled) -> Result<(), String> {
    stack.push(Slot::Value(value));
    Ok(())
}

fn pop(stack: &mut Vec<Slot>) -> Option<Pickled> {
    match stack.pop()? {
        Slot::Value(value) => Some(value),
        Slot::Mark => None,
    }
}

/// The values pushed since the last mark, which is removed.
fn since_mark(stack: &mut Vec<Slot>) -> Option<Vec<Pickled>> {
    let mark = stack.iter().rposition(|s| matches!(s, Slot::Mark))?;
    let items = stack
        .split_off(mark + 1)
        .into_iter()
        .filter_map(|slot| match slot {
            Slot::Value(v) => Some(v),
            Slot::Mark => None,
        })
        .collect();
    stack.pop();
    Some(items)
}

/// A little-endian two's-complement integer of at most 8 bytes (`LONG1`).
fn long(digits: &[u8]) -> Option<i64> {
    if digits.len() > 8 {
        return None;
    }
    let negative = digits.last().is_some_and(|b| b & 0x80 != 0);
    let mut bytes = [if negative { 0xff } else { 0 }; 8];
    bytes[..digits.len()].copy_from_slice(digits);
    Some(i64::from_le_bytes(bytes))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| format!("byte {}: the pickle ends early", self.at))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn line(&mut self) -> Result<String, String> {
        let rest = &self.bytes[self.at..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| format!("byte {}: a name without an end of line", self.at))?;
        let text = std::str::from_utf8(&rest[..end])
            .map_err(|_| format!("byte {}: a name is not UTF-8", self.at))?
            .to_owned();
        self.at += end + 1;
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_dictionary_as_chroma_1_writes_it() {
        // {"dimensionality": None, "total_elements_added": 2, "id_to_label": {"a_0": 1, "b_1": 2}}
        let mut bytes = vec![0x80, 3, b'}', b'('];
        let text = |bytes: &mut Vec<u8>, s: &str| {
            bytes.push(b'X');
            bytes.extend((s.len() as u32).to_le_bytes());
            bytes.extend(s.as_bytes());
        };
        text(&mut bytes, "dimensionality");
        bytes.push(b'N');
        text(&mut bytes, "total_elements_added");
        bytes.extend([b'J', 2, 0, 0, 0]);
        text(&mut bytes, "id_to_label");
        bytes.extend([b'}', b'(']);
        text(&mut bytes, "a_0");
        bytes.extend([b'K', 1]);
        text(&mut bytes, "b_1");
        bytes.extend([b'M', 2, 0]);
        bytes.extend([b'u', b'u', b'.']);
        let value = parse(&bytes).unwrap();
        assert_eq!(value.get("total_elements_added"), Some(&Pickled::Int(2)));
        assert_eq!(value.get("dimensionality"), Some(&Pickled::None));
        let labels = value.get("id_to_label").unwrap();
        assert_eq!(labels.get("b_1"), Some(&Pickled::Int(2)));
    }

    #[test]
    fn reads_an_object_as_its_state() {
        // copyreg-free protocol-2 form: GLOBAL, EMPTY_TUPLE, NEWOBJ, state dict, BUILD.
        let mut bytes = vec![0x80, 2, b'c'];
        bytes.extend(b"chromadb.segment.impl.vector.local_persistent_hnsw\nPersistentData\n");
        bytes.extend([b')', 0x81, b'}', b'q', 0, 0x8c, 3]);
        bytes.extend(b"max");
        bytes.extend([0x8a, 2, 0x00, 0x01, b's', b'b', b'.']);
        let value = parse(&bytes).unwrap();
        let Pickled::Object { class, .. } = &value else {
            panic!("{value:?}")
        };
        assert!(class.ends_with("PersistentData"));
        assert_eq!(value.get("max"), Some(&Pickled::Int(256)));
    }

    #[test]
    fn refuses_damage_with_the_offset() {
        assert!(parse(&[0x80, 3, b'}']).unwrap_err().contains("ends early"));
        assert!(
            parse(&[0x80, 3, b'u', b'.'])
                .unwrap_err()
                .contains("byte 2")
        );
        assert!(
            parse(&[0x80, 3, 0xff])
                .unwrap_err()
                .contains("not supported")
        );
        // A memo index far beyond the pickle's size is refused, not allocated for.
        assert!(
            parse(&[0x80, 3, b'N', b'r', 0xff, 0xff, 0xff, 0x7f, b'.'])
                .unwrap_err()
                .contains("memo index out of range")
        );
        let deep: Vec<u8> = std::iter::repeat_n(b'(', 100).chain([b'N']).collect();
        assert!(parse(&deep).unwrap_err().contains("deeply"));
    }
}
