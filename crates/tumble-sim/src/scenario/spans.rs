//! Finding where a dotted key path sits in the scenario text, for error messages.

use std::ops::Range;
use toml_edit::{ArrayOfTables, Document, Item, Table, Value};

/// Byte span of the value at `path` (`bodies.target.mass`; array elements by index:
/// `bodies.target.loads.0.force`). When the path does not exist (a missing key) the span of
/// the deepest existing ancestor is returned, so that the message points at the table to fix.
pub(crate) fn span_of(doc: &Document<&str>, path: &str) -> Option<Range<usize>> {
    let parts: Vec<&str> = path.split('.').filter(|p| !p.is_empty()).collect();
    lookup(Node::Table(doc.as_table()), &parts)
}

#[derive(Clone, Copy)]
enum Node<'a> {
    Table(&'a Table),
    Tables(&'a ArrayOfTables),
    Value(&'a Value),
}

impl<'a> Node<'a> {
    fn of(item: &'a Item) -> Option<Self> {
        match item {
            Item::Table(t) => Some(Node::Table(t)),
            Item::ArrayOfTables(a) => Some(Node::Tables(a)),
            Item::Value(v) => Some(Node::Value(v)),
            Item::None => None,
        }
    }

    fn span(self) -> Option<Range<usize>> {
        match self {
            Node::Table(t) => t.span(),
            Node::Tables(a) => a.get(0).and_then(Table::span),
            Node::Value(v) => v.span(),
        }
    }

    fn child(self, key: &str) -> Option<Node<'a>> {
        match self {
            Node::Table(t) => t.get(key).and_then(Node::of),
            Node::Tables(a) => key.parse().ok().and_then(|i| a.get(i)).map(Node::Table),
            Node::Value(Value::InlineTable(t)) => t.get(key).map(Node::Value),
            Node::Value(Value::Array(a)) => key.parse().ok().and_then(|i| a.get(i)).map(Node::Value),
            Node::Value(_) => None,
        }
    }
}

fn lookup(node: Node<'_>, parts: &[&str]) -> Option<Range<usize>> {
    match parts.split_first() {
        None => node.span(),
        Some((head, tail)) => match node.child(head) {
            Some(c) => lookup(c, tail).or_else(|| node.span()),
            None => node.span(),
        },
    }
}
