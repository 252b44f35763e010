"""Every Cypher statement MotivGraph runs, shared by the FalkorDB and Neo4j backends.

Rules: every value is a `$parameter`. Labels and relationship types cannot be parameters in
Cypher, so the few statements that vary by label are built by functions that accept only a label
from the fixed schema (`_label` raises on anything else) — never text from a caller.
Index/constraint DDL differs per dialect and lives beside each backend.

Schema (DESIGN.md): (:Problem|Challenge|Solution {key, name, description, aliases, norm_aliases,
level, created_at, sources, rnd}), (:Paper {paper_id, ...}), (:Meta {id: 'graph', node_version}),
HAS_CHALLENGE {sources}, SOLVED_BY {sources, problems, stated}, PARENT_OF, and
(:Paper)-[:STATES {triple_index, role, section, extractor, mention, verified, quotes, quote_verified,
quote_sections, quote_pages, quote_starts, quote_ends, quote_reasons}]->(node).

Evidence lives on the STATES edge that records the statement: one edge is one element (role) of one
triple of one paper, so the quotes for it are exactly that edge's. Property values cannot be maps
(Neo4j), so the quotes are parallel lists, one entry per quote, with no nulls (Neo4j lists cannot
hold them): '' for no section or reason, 0 for no page, -1 for no offset. `verified` is true when any
quote of the edge was located in the paper (the grounding check reads it without the lists).
Every path that writes or removes a STATES edge carries its evidence with it: re-ingest overwrites
the lists, removal deletes the edge, export/import/push rebuild it from `paper_triples`.

A triple (P, C, S) exists only where a paper stated it: SOLVED_BY(C->S).problems lists the problem
keys it was stated for, and SOLVED_BY.stated holds "<problem key>\\x1f<paper id>" pairs so the
papers behind one triple are read without a join. Keys are normalised names (letters, digits,
spaces), so they never contain the separator.
"""

from __future__ import annotations

import re

NODE_LABELS: tuple[str, ...] = ("Problem", "Challenge", "Solution")
PARENT_LABELS: tuple[str, ...] = ("Problem", "Challenge")
REL_TYPES: tuple[str, ...] = ("HAS_CHALLENGE", "SOLVED_BY", "PARENT_OF", "STATES")
STATED_SEP = "\x1f"
META_ID = "graph"


def _label(label: str, allowed: tuple[str, ...] = NODE_LABELS) -> str:
    if label not in allowed:
        raise ValueError(f"not a schema label: {label!r}")
    return label


def _ref(v: str) -> str:
    return f"{{key: {v}.key, name: {v}.name, description: {v}.description, level: {v}.level}}"


def _rec(v: str) -> str:
    return (
        f"{{key: {v}.key, name: {v}.name, description: {v}.description, level: {v}.level, "
        f"aliases: {v}.aliases, sources: {v}.sources, created_at: {v}.created_at}}"
    )


_PAPER = (
    "{paper_id: p.paper_id, title: p.title, abstract: p.abstract, year: p.year, venue: p.venue, "
    "authors: p.authors, source_path: p.source_path, sha256: p.sha256, provenance: p.provenance}"
)

# Bumps Meta.node_version when the preceding aggregation saw a created or re-texted node.
_BUMP = """
MERGE (m:Meta {id: $meta_id})
ON CREATE SET m.node_version = 0
SET m.node_version = m.node_version + CASE WHEN created + changed > 0 THEN 1 ELSE 0 END
RETURN created, changed, aliases_added, m.node_version AS node_version
"""

# ----------------------------------------------------------------------------------------- meta
META_INIT = (
    "MERGE (m:Meta {id: $meta_id}) ON CREATE SET m.node_version = 0, m.triples = 0 "
    "RETURN m.node_version AS node_version"
)
NODE_VERSION = "MATCH (m:Meta {id: $meta_id}) RETURN m.node_version AS node_version"
SET_NODE_VERSION = "MERGE (m:Meta {id: $meta_id}) SET m.node_version = $version RETURN m.node_version AS node_version"

# ----------------------------------------------------------------------------------------- papers
UPSERT_PAPERS = """
UNWIND $rows AS r
OPTIONAL MATCH (o:Paper {paper_id: r.paper_id})
WITH r, o IS NULL AS created
MERGE (p:Paper {paper_id: r.paper_id})
SET p.title = r.title, p.abstract = r.abstract, p.year = r.year, p.venue = r.venue,
    p.authors = r.authors, p.source_path = r.source_path, p.sha256 = r.sha256, p.provenance = r.provenance
RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS created
"""

# Papers named only by triples get a bare node; upsert_papers fills it in later.
ENSURE_PAPERS = """
UNWIND $ids AS pid
MERGE (p:Paper {paper_id: pid})
ON CREATE SET p.title = '', p.abstract = '', p.authors = []
"""

GET_PAPER = f"MATCH (p:Paper {{paper_id: $paper_id}}) RETURN {_PAPER} AS paper"

ITER_PAPERS = f"""
MATCH (p:Paper) WHERE p.paper_id > $after
WITH p ORDER BY p.paper_id LIMIT $limit
RETURN {_PAPER} AS paper
"""

# The evidence lists of a STATES edge `st`, as one map (read back by cypher.quotes_of).
_QUOTES = ("{verified: st.verified, quotes: st.quotes, quote_verified: st.quote_verified, "
           "quote_sections: st.quote_sections, quote_pages: st.quote_pages, quote_starts: st.quote_starts, "
           "quote_ends: st.quote_ends, quote_reasons: st.quote_reasons}")


def _quotes(v: str) -> str:
    return _QUOTES.replace("st.", f"{v}.")


PAPER_STATES = f"""
MATCH (pa:Paper {{paper_id: $paper_id}})-[st:STATES]->(n)
RETURN st.triple_index AS triple_index, st.role AS role, st.section AS section,
       st.extractor AS extractor, st.mention AS mention, n.key AS key, n.name AS name,
       n.description AS description, {_QUOTES} AS ev
ORDER BY triple_index
"""


# ----------------------------------------------------------------------------------------- nodes
def upsert_nodes(label: str) -> str:
    """Rows: {key, name, names, norms, description, papers, level, rnd} — one row per key.
    New spellings become aliases; the first non-empty description is kept (so re-upserts are no-ops)."""
    lb = _label(label)
    return f"""
UNWIND $rows AS r
OPTIONAL MATCH (o:{lb} {{key: r.key}})
WITH r, o IS NULL AS was_new, coalesce(o.description, '') AS old_desc
MERGE (n:{lb} {{key: r.key}})
ON CREATE SET n.name = r.name, n.description = r.description, n.aliases = [], n.norm_aliases = [],
              n.level = r.level, n.created_at = $now, n.sources = [], n.rnd = r.rnd
WITH n, r, was_new, old_desc,
     [a IN r.names WHERE a <> n.name AND NOT a IN n.aliases] AS new_aliases
SET n.aliases = n.aliases + new_aliases,
    n.norm_aliases = n.norm_aliases + [x1 IN r.norms WHERE NOT x1 IN n.norm_aliases],
    n.sources = n.sources + [x2 IN r.papers WHERE NOT x2 IN n.sources],
    n.description = CASE WHEN n.description = '' THEN r.description ELSE n.description END
WITH sum(CASE WHEN was_new THEN 1 ELSE 0 END) AS created,
     sum(CASE WHEN NOT was_new AND old_desc = '' AND r.description <> '' THEN 1 ELSE 0 END) AS changed,
     sum(size(new_aliases)) AS aliases_added
{_BUMP}"""


def restore_nodes(label: str) -> str:
    """Rows: a node exactly as exported (import). Text changes bump node_version."""
    lb = _label(label)
    return f"""
UNWIND $rows AS r
OPTIONAL MATCH (o:{lb} {{key: r.key}})
WITH r, o IS NULL AS was_new, coalesce(o.name, '') AS old_name, coalesce(o.description, '') AS old_desc
MERGE (n:{lb} {{key: r.key}})
SET n.name = r.name, n.description = r.description, n.aliases = r.aliases, n.norm_aliases = r.norms,
    n.level = r.level, n.created_at = coalesce(r.created_at, $now), n.sources = r.sources, n.rnd = r.rnd
WITH sum(CASE WHEN was_new THEN 1 ELSE 0 END) AS created,
     sum(CASE WHEN NOT was_new AND (old_name <> r.name OR old_desc <> r.description) THEN 1 ELSE 0 END) AS changed,
     0 AS aliases_added
{_BUMP}"""


# ----------------------------------------------------------------------------------------- edges
UPSERT_HAS_CHALLENGE = """
UNWIND $rows AS r
MATCH (p:Problem {key: r.pk})
MATCH (c:Challenge {key: r.ck})
OPTIONAL MATCH (p)-[o:HAS_CHALLENGE]->(c)
WITH p, c, r, o IS NULL AS was_new
MERGE (p)-[e:HAS_CHALLENGE]->(c)
ON CREATE SET e.sources = []
SET e.sources = e.sources + [x IN r.papers WHERE NOT x IN e.sources]
RETURN sum(CASE WHEN was_new THEN 1 ELSE 0 END) AS created
"""

# Also keeps Meta.triples (the number of stated triples) current, so stats never scan the edges.
# A graph written before the counter existed has none (null) until TRIPLES_INIT sets it.
UPSERT_SOLVED_BY = """
UNWIND $rows AS r
MATCH (c:Challenge {key: r.ck})
MATCH (s:Solution {key: r.sk})
OPTIONAL MATCH (c)-[o:SOLVED_BY]->(s)
WITH c, s, r, o IS NULL AS was_new
MERGE (c)-[e:SOLVED_BY]->(s)
ON CREATE SET e.sources = [], e.problems = [], e.stated = []
WITH e, r, was_new, [x2 IN r.problems WHERE NOT x2 IN e.problems] AS new_problems
SET e.sources = e.sources + [x1 IN r.papers WHERE NOT x1 IN e.sources],
    e.problems = e.problems + new_problems,
    e.stated = e.stated + [x3 IN r.stated WHERE NOT x3 IN e.stated]
WITH sum(CASE WHEN was_new THEN 1 ELSE 0 END) AS created, sum(size(new_problems)) AS added
MERGE (m:Meta {id: $meta_id})
ON CREATE SET m.node_version = 0, m.triples = 0
SET m.triples = CASE WHEN m.triples IS NULL THEN NULL ELSE m.triples + added END
RETURN created
"""


def upsert_states(label: str) -> str:
    """Rows: {paper_id, key, triple_index, role, section, extractor, mention, ev: {verified, quotes,
    quote_verified, quote_sections, quote_pages, quote_starts, quote_ends, quote_reasons}}. Every
    property is SET, so a re-ingest of the paper replaces its evidence instead of adding to it."""
    lb = _label(label)
    return f"""
UNWIND $rows AS r
MATCH (pa:Paper {{paper_id: r.paper_id}})
MATCH (n:{lb} {{key: r.key}})
OPTIONAL MATCH (pa)-[o:STATES {{triple_index: r.triple_index, role: r.role}}]->(n)
WITH pa, n, r, o IS NULL AS was_new
MERGE (pa)-[st:STATES {{triple_index: r.triple_index, role: r.role}}]->(n)
SET st.section = r.section, st.extractor = r.extractor, st.mention = r.mention,
    st.verified = r.ev.verified, st.quotes = r.ev.quotes, st.quote_verified = r.ev.quote_verified,
    st.quote_sections = r.ev.quote_sections, st.quote_pages = r.ev.quote_pages,
    st.quote_starts = r.ev.quote_starts, st.quote_ends = r.ev.quote_ends, st.quote_reasons = r.ev.quote_reasons
RETURN sum(CASE WHEN was_new THEN 1 ELSE 0 END) AS created
"""


def upsert_parent_edges(label: str) -> str:
    """Rows: {parent, child}; children that do not exist are skipped (`matched` tells)."""
    lb = _label(label, PARENT_LABELS)
    return f"""
UNWIND $rows AS r
MATCH (par:{lb} {{key: r.parent}})
MATCH (ch:{lb} {{key: r.child}})
OPTIONAL MATCH (par)-[o:PARENT_OF]->(ch)
WITH par, ch, o IS NULL AS was_new
MERGE (par)-[:PARENT_OF]->(ch)
RETURN sum(CASE WHEN was_new THEN 1 ELSE 0 END) AS created, count(*) AS matched
"""


def iter_parents(label: str) -> str:
    """Nodes with PARENT_OF edges and their children, by key. Any level: a parent whose name matched
    an extracted (level 0) node merged into it and keeps that level, but its edges still count."""
    lb = _label(label, PARENT_LABELS)
    return f"""
MATCH (par:{lb})-[:PARENT_OF]->(:{lb}) WHERE par.key > $after
WITH DISTINCT par ORDER BY par.key LIMIT $limit
MATCH (par)-[:PARENT_OF]->(ch:{lb})
WITH par, collect(ch.key) AS children
RETURN par.key AS key, par.name AS name, par.description AS description, par.level AS level, children
ORDER BY key
"""


# ----------------------------------------------------------------------------------------- reads
def find_nodes(labels: tuple[str, ...], alias_index: str | None = None) -> str:
    """Exact key per label ($key_<Label>) or a normalised alias ($norm); UNION removes duplicates.

    `$norm IN n.norm_aliases` is an index lookup where an index on a list property indexes its elements
    (FalkorDB); Neo4j's range indexes do not, so there the alias branch is one lookup in `alias_index`, a
    keyword-analysed full-text index over norm_aliases (one term per element), with $norm_query = the
    quoted term (`lucene_term`) -- instead of a scan of every node of each label."""
    labels = tuple(map(_label, labels))
    parts = [f"MATCH (n:{lb} {{key: $key_{lb}}}) RETURN {_rec('n')} AS node" for lb in labels]
    if alias_index is None:
        parts += [f"MATCH (n:{lb}) WHERE $norm IN n.norm_aliases RETURN {_rec('n')} AS node" for lb in labels]
    else:
        if not re.fullmatch(r"[a-z_]+", alias_index):
            raise ValueError(f"not an index name: {alias_index!r}")
        which = " OR ".join(f"n:{lb}" for lb in labels)
        parts.append(f"CALL db.index.fulltext.queryNodes('{alias_index}', $norm_query) YIELD node AS n "
                     f"WITH n WHERE ({which}) AND $norm IN n.norm_aliases RETURN {_rec('n')} AS node")
    return "\nUNION\n".join(parts)


def lucene_term(text: str) -> str:
    """`text` as one quoted Lucene term (a keyword analyser keeps it whole): the alias index's query."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def get_node_by_key(label: str) -> str:
    lb = _label(label)
    return f"MATCH (n:{lb} {{key: $key}}) RETURN {_rec('n')} AS node"


def node_detail(label: str) -> str:
    """Everything get_node shows, in one round trip: rows (kind, item) for the node itself
    ('node'), its 'parents', 'children', typed neighbours ('problems', 'challenges', 'solutions'),
    source 'papers' and stated 'triples' through it. Each part is its own UNION branch with its
    own LIMIT ($cap, $limit for triples), so a hub node costs a bounded walk, not a full expansion;
    which capped items are shown is deterministic for a given graph."""
    lb = _label(label)
    n = f"(n:{lb} {{key: $key}})"
    rec = _rec("n").replace("sources: n.sources", "sources: n.sources[..$src_cap]")
    parts = [
        f"MATCH {n} RETURN 'node' AS kind, {rec} AS item",
        f"MATCH (x)-[:PARENT_OF]->{n} RETURN 'parents' AS kind, {_ref('x')} AS item LIMIT $cap",
        f"MATCH {n}-[:PARENT_OF]->(x) RETURN 'children' AS kind, {_ref('x')} AS item LIMIT $cap",
    ]
    if lb == "Problem":
        parts += [
            f"MATCH {n}-[:HAS_CHALLENGE]->(x:Challenge) RETURN 'challenges' AS kind, {_ref('x')} AS item LIMIT $cap",
            # a problem's solutions are those of triples stated for it, not every C->S below it
            f"MATCH {n}-[:HAS_CHALLENGE]->(:Challenge)-[e:SOLVED_BY]->(x:Solution) WHERE $key IN e.problems "
            f"RETURN DISTINCT 'solutions' AS kind, {_ref('x')} AS item LIMIT $cap",
        ]
        triples = ("MATCH (p:Problem {key: $key})-[:HAS_CHALLENGE]->(c:Challenge)-[e:SOLVED_BY]->(s:Solution) "
                   "WHERE $key IN e.problems")
    elif lb == "Challenge":
        parts += [
            f"MATCH (x:Problem)-[:HAS_CHALLENGE]->{n} RETURN 'problems' AS kind, {_ref('x')} AS item LIMIT $cap",
            f"MATCH {n}-[:SOLVED_BY]->(x:Solution) RETURN 'solutions' AS kind, {_ref('x')} AS item LIMIT $cap",
        ]
        triples = ("MATCH (c:Challenge {key: $key})-[e:SOLVED_BY]->(s:Solution) "
                   "UNWIND e.problems AS pk MATCH (p:Problem {key: pk})")
    else:
        parts += [
            f"MATCH (x:Challenge)-[:SOLVED_BY]->{n} RETURN 'challenges' AS kind, {_ref('x')} AS item LIMIT $cap",
            # a solution's problems are the ones its SOLVED_BY edges were stated for
            f"MATCH (:Challenge)-[e:SOLVED_BY]->{n} UNWIND e.problems AS pk WITH DISTINCT pk LIMIT $cap "
            f"MATCH (x:Problem {{key: pk}}) RETURN 'problems' AS kind, {_ref('x')} AS item",
        ]
        triples = ("MATCH (c:Challenge)-[e:SOLVED_BY]->(s:Solution {key: $key}) "
                   "UNWIND e.problems AS pk MATCH (p:Problem {key: pk})")
    parts.append(
        f"MATCH (pa:Paper)-[:STATES]->{n} WITH DISTINCT pa LIMIT $cap "
        "RETURN 'papers' AS kind, {paper_id: pa.paper_id, title: pa.title, year: pa.year} AS item"
    )
    parts.append(
        f"{triples} WITH p, c, e, s LIMIT $limit RETURN 'triples' AS kind, "
        f"{{p: {_ref('p')}, c: {_ref('c')}, s: {_ref('s')}, "
        "stated: [x IN e.stated WHERE x STARTS WITH (p.key + $sep)]} AS item"
    )
    return "\nUNION ALL\n".join(parts)


# A triple row: three node refs and the raw "<problem key>\x1f<paper id>" entries for this problem.
_TRIPLE_RETURN = f"""
RETURN {_ref('p')} AS p, {_ref('c')} AS c, {_ref('s')} AS s,
       [x IN e.stated WHERE x STARTS WITH (p.key + $sep)] AS stated"""


def random_window(labels: tuple[str, ...]) -> str:
    """Per label, the first $limit (key, rnd) with $lo <= rnd < $hi in rnd order: one range scan of
    each label's rnd index, one round trip. Full records are fetched afterwards for the chosen few."""
    parts = [
        f"MATCH (n:{lb}) WHERE n.rnd >= $lo AND n.rnd < $hi "
        "WITH n ORDER BY n.rnd LIMIT $limit RETURN n.key AS key, n.rnd AS rnd"
        for lb in map(_label, labels)
    ]
    return "\nUNION ALL\n".join(parts)


def records_by_keys(labels: tuple[str, ...]) -> str:
    """Full records for $keys_<Label> lists, one round trip."""
    parts = [
        f"UNWIND $keys_{lb} AS k MATCH (n:{lb} {{key: k}}) RETURN {_rec('n')} AS node" for lb in map(_label, labels)
    ]
    return "\nUNION ALL\n".join(parts)


def count_label(label: str) -> str:
    # Exactly this shape: FalkorDB answers a bare label count from its statistics in O(1); any
    # extra column or UNION turns it into a label scan.
    return f"MATCH (n:{_label(label, (*NODE_LABELS, 'Paper'))}) RETURN count(n) AS n"


# Light rows first (keys only), then the chosen triples in full: the window may hold many more
# rows than are returned.
RANDOM_TRIPLE_WINDOW = """
MATCH (c:Challenge) WHERE c.rnd >= $lo AND c.rnd < $hi
MATCH (c)-[e:SOLVED_BY]->(s:Solution)
UNWIND e.problems AS pk
WITH c, s, pk ORDER BY c.rnd, s.key, pk LIMIT $limit
RETURN c.key AS ck, c.rnd AS rnd, s.key AS sk, pk
"""

TRIPLES_BY_KEYS = f"""
UNWIND $rows AS r
MATCH (p:Problem {{key: r.pk}})
MATCH (c:Challenge {{key: r.ck}})-[e:SOLVED_BY]->(s:Solution {{key: r.sk}})
RETURN r.i AS i, {_ref('p')} AS p, {_ref('c')} AS c, {_ref('s')} AS s,
       [x IN e.stated WHERE x STARTS WITH (p.key + $sep)] AS stated
"""


def count_parents(label: str) -> str:
    return f"MATCH (n:{_label(label, PARENT_LABELS)}) WHERE n.level >= 1 RETURN count(n) AS n"


def count_rel(rel_type: str) -> str:
    return f"MATCH ()-[e:{_label(rel_type, REL_TYPES)}]->() RETURN count(e) AS n"


TRIPLE_COUNT = "MATCH (m:Meta {id: $meta_id}) RETURN m.triples AS n"
# One-off (scans every SOLVED_BY edge): for a graph from before Meta.triples was kept.
TRIPLES_INIT = """
OPTIONAL MATCH (:Challenge)-[e:SOLVED_BY]->(:Solution)
WITH coalesce(sum(size(e.problems)), 0) AS n
MERGE (m:Meta {id: $meta_id})
ON CREATE SET m.node_version = 0
SET m.triples = n
RETURN n
"""


def iter_nodes(label: str) -> str:
    lb = _label(label)
    return f"""
MATCH (n:{lb}) WHERE n.key > $after
WITH n ORDER BY n.key LIMIT $limit
RETURN {_rec('n')} AS node
"""


# ----------------------------------------------------------------------------------------- paging
def page_triples(*, paper: bool, parent: str | None, problem: str | None, challenge: str | None,
                 solution: str | None) -> str:
    """Triples in (challenge rnd, challenge key, solution key, problem key) order after the cursor
    ($cr = rnd of the cursor's challenge, $ck, $sk, $pk).

    The order is stable and needs no sort of the whole graph: the most selective filter anchors
    the match (an index lookup, or one scan of one label's names for a substring), and without
    any filter a page reads only the challenges in the rnd window [$lo, $hi) (a range scan; the
    caller widens it until the page is full). Each filter adds a fixed fragment; the filter values are parameters.
    `problem`/`challenge`/`solution` are 'key' (exact key) or 'name' (case-insensitive substring
    of $<field>_lc); `parent` is the label of the parent ($parent) whose descendants P or C must be.
    """
    carry = ""
    where_c = ["c.rnd >= $cr"]
    where_s: list[str] = []
    where_p: list[str] = []
    if parent == "Challenge":
        anchor = "MATCH (:Challenge {key: $parent})-[:PARENT_OF*1..8]->(c0:Challenge)\nWITH DISTINCT c0 AS c"
    elif parent == "Problem":
        anchor = (
            "MATCH (:Problem {key: $parent})-[:PARENT_OF*1..8]->(d:Problem)\n"
            "WITH collect(DISTINCT d.key) AS dks\n"
            "UNWIND dks AS dk\n"
            "MATCH (:Problem {key: dk})-[:HAS_CHALLENGE]->(c0:Challenge)\n"
            "WITH DISTINCT c0 AS c, dks"
        )
        carry = ", dks"
        where_p.append("pk IN dks")
    elif paper:
        anchor = (
            "MATCH (:Paper {paper_id: $paper_id})-[:STATES {role: 'challenge'}]->(c0:Challenge)\n"
            "WITH DISTINCT c0 AS c"
        )
    elif problem == "key":
        anchor = "MATCH (:Problem {key: $problem})-[:HAS_CHALLENGE]->(c0:Challenge)\nWITH DISTINCT c0 AS c"
    elif challenge == "key":
        anchor = "MATCH (c:Challenge {key: $challenge})"
    elif solution == "key":
        anchor = "MATCH (c0:Challenge)-[:SOLVED_BY]->(:Solution {key: $solution})\nWITH DISTINCT c0 AS c"
    elif problem == "name":
        # one scan of the problem names, then only the matches are expanded
        anchor = (
            "MATCH (p0:Problem) WHERE toLower(p0.name) CONTAINS $problem_lc\n"
            "MATCH (p0)-[:HAS_CHALLENGE]->(c0:Challenge)\nWITH DISTINCT c0 AS c"
        )
    elif challenge == "name":
        anchor = "MATCH (c:Challenge) WHERE toLower(c.name) CONTAINS $challenge_lc"
    elif solution == "name":
        anchor = (
            "MATCH (s0:Solution) WHERE toLower(s0.name) CONTAINS $solution_lc\n"
            "MATCH (c0:Challenge)-[:SOLVED_BY]->(s0)\nWITH DISTINCT c0 AS c"
        )
    else:
        anchor = ""
        where_c = ["c.rnd >= $lo", "c.rnd < $hi"]
    if challenge == "key":
        where_c.append("c.key = $challenge")
    elif challenge == "name":
        where_c.append("toLower(c.name) CONTAINS $challenge_lc")
    if solution == "key":
        where_s.append("s.key = $solution")
    elif solution == "name":
        where_s.append("toLower(s.name) CONTAINS $solution_lc")
    if problem == "key":
        where_p.append("pk = $problem")
    elif problem == "name":
        where_p.append("toLower(p.name) CONTAINS $problem_lc")
    if paper:
        where_p.append("(pk + $sep + $paper_id) IN e.stated")
    if anchor:
        lines = [anchor, f"WITH c{carry} WHERE " + " AND ".join(where_c)]
    else:
        lines = ["MATCH (c:Challenge) WHERE " + " AND ".join(where_c)]
    lines.append("MATCH (c)-[e:SOLVED_BY]->(s:Solution)")
    if where_s:
        lines.append("WHERE " + " AND ".join(where_s))
    lines.append("UNWIND e.problems AS pk")
    lines.append(
        f"WITH c, e, s, pk{carry} WHERE c.rnd > $cr OR (c.rnd = $cr AND (c.key > $ck OR (c.key = $ck AND "
        "(s.key > $sk OR (s.key = $sk AND pk > $pk)))))"
    )
    lines.append("MATCH (p:Problem {key: pk})")
    if where_p:
        lines.append("WHERE " + " AND ".join(where_p))
    lines.append("WITH p, c, e, s ORDER BY c.rnd, c.key, s.key, p.key LIMIT $limit")
    return "\n".join(lines) + _TRIPLE_RETURN


# ----------------------------------------------------------------------------------------- removal
# Taking one paper's contribution out again (re-extraction, `papers delete`, undoing a merge). The
# store computes the new sources/aliases of each touched node in Python (normalisation lives there)
# and writes them with these statements; every statement is idempotent, so a removal cut short by
# a crash converges when it is run again.


def node_provenance(label: str) -> str:
    """Rows {key, name, aliases, sources, mentions}: the node and the mentions other papers state it with."""
    lb = _label(label)
    return f"""
UNWIND $keys AS k
MATCH (n:{lb} {{key: k}})
OPTIONAL MATCH (pa:Paper)-[st:STATES]->(n) WHERE pa.paper_id <> $paper_id
RETURN n.key AS key, n.name AS name, n.aliases AS aliases, n.sources AS sources,
       collect(DISTINCT st.mention) AS mentions
"""


DELETE_PAPER_STATES = """
MATCH (:Paper {paper_id: $paper_id})-[st:STATES]->()
DELETE st
RETURN count(st) AS deleted
"""

# Rows {triple_index, role, key}: single statements of the paper (a paper written again by a document that
# states less: the earlier document's statements it does not repeat). The edge goes, its quotes with it.
DELETE_STATES_AT = """
UNWIND $rows AS r
MATCH (:Paper {paper_id: $paper_id})-[st:STATES {triple_index: r.triple_index, role: r.role}]->(n)
WHERE n.key = r.key
DELETE st
RETURN count(st) AS deleted
"""


def set_provenance(label: str) -> str:
    """Rows {key, sources, aliases, norms}: a node's provenance after a paper left it."""
    lb = _label(label)
    return f"""
UNWIND $rows AS r
MATCH (n:{lb} {{key: r.key}})
SET n.sources = r.sources, n.aliases = r.aliases, n.norm_aliases = r.norms
RETURN count(n) AS updated
"""


# A HAS_CHALLENGE edge lives as long as some paper states it.
UNSTATE_HAS_CHALLENGE = """
UNWIND $rows AS r
MATCH (:Problem {key: r.pk})-[e:HAS_CHALLENGE]->(:Challenge {key: r.ck})
SET e.sources = [x IN e.sources WHERE x <> $paper_id]
RETURN count(e) AS updated
"""

DELETE_UNSTATED_HAS_CHALLENGE = """
UNWIND $rows AS r
MATCH (:Problem {key: r.pk})-[e:HAS_CHALLENGE]->(:Challenge {key: r.ck})
WHERE size(e.sources) = 0
DELETE e
RETURN count(e) AS deleted
"""

# SOLVED_BY keeps the (problem, paper) pairs of the other papers; a problem stays in `problems` while a
# pair names it. Meta.triples falls by the triples that no paper states any more.
UNSTATE_SOLVED_BY = """
UNWIND $rows AS r
MATCH (:Challenge {key: r.ck})-[e:SOLVED_BY]->(:Solution {key: r.sk})
WITH e, size(e.problems) AS before, [x IN e.stated WHERE NOT x ENDS WITH $suffix] AS stated
WITH e, before, stated, [pk IN e.problems WHERE any(x IN stated WHERE x STARTS WITH (pk + $sep))] AS problems
SET e.stated = stated, e.problems = problems, e.sources = [x IN e.sources WHERE x <> $paper_id]
WITH sum(before - size(problems)) AS removed
MERGE (m:Meta {id: $meta_id})
ON CREATE SET m.node_version = 0, m.triples = 0
SET m.triples = CASE WHEN m.triples IS NULL THEN NULL ELSE m.triples - removed END
RETURN removed
"""

# The partial form of UNSTATE_SOLVED_BY: rows {ck, sk, drop, unsource} take out only the (problem, paper)
# pairs in `drop`; the paper leaves the edge's sources only when it states the edge no more (`unsource`).
UNSTATE_SOLVED_BY_PAIRS = """
UNWIND $rows AS r
MATCH (:Challenge {key: r.ck})-[e:SOLVED_BY]->(:Solution {key: r.sk})
WITH e, r, size(e.problems) AS before, [x IN e.stated WHERE NOT x IN r.drop] AS stated
WITH e, r, before, stated, [pk IN e.problems WHERE any(x IN stated WHERE x STARTS WITH (pk + $sep))] AS problems
SET e.stated = stated, e.problems = problems,
    e.sources = CASE WHEN r.unsource THEN [x IN e.sources WHERE x <> $paper_id] ELSE e.sources END
WITH sum(before - size(problems)) AS removed
MERGE (m:Meta {id: $meta_id})
ON CREATE SET m.node_version = 0, m.triples = 0
SET m.triples = CASE WHEN m.triples IS NULL THEN NULL ELSE m.triples - removed END
RETURN removed
"""

DELETE_UNSTATED_SOLVED_BY = """
UNWIND $rows AS r
MATCH (:Challenge {key: r.ck})-[e:SOLVED_BY]->(:Solution {key: r.sk})
WHERE size(e.stated) = 0
DELETE e
RETURN count(e) AS deleted
"""


def delete_orphans(label: str) -> str:
    """Of the given keys, the nodes no paper states and that are no parent: deleted with their edges."""
    lb = _label(label)
    return f"""
UNWIND $keys AS k
MATCH (n:{lb} {{key: k}})
WHERE size(n.sources) = 0 AND NOT (n)-[:PARENT_OF]->()
WITH n, n.key AS key
DETACH DELETE n
RETURN key
"""


def delete_childless_parents(label: str) -> str:
    """Parent nodes (level >= 1) left with no child and stated by no paper (a level at a time)."""
    lb = _label(label, PARENT_LABELS)
    return f"""
MATCH (n:{lb}) WHERE n.level >= 1 AND size(n.sources) = 0 AND NOT (n)-[:PARENT_OF]->()
WITH n, n.key AS key
DETACH DELETE n
RETURN key
"""


DELETE_PAPER = """
MATCH (p:Paper {paper_id: $paper_id})
DETACH DELETE p
RETURN count(*) AS deleted
"""

BUMP_NODE_VERSION = """
MERGE (m:Meta {id: $meta_id})
ON CREATE SET m.node_version = 0
SET m.node_version = m.node_version + 1
RETURN m.node_version AS node_version
"""


def node_evidence(label: str) -> str:
    """Rows {key, items}: per node of $keys, up to $per STATES edges with their paper and quotes --
    verified ones first, then by paper and triple -- in one round trip per label."""
    lb = _label(label)
    return f"""
UNWIND $keys AS k
MATCH (pa:Paper)-[st:STATES]->(n:{lb} {{key: k}})
WITH k, pa, st ORDER BY k, coalesce(st.verified, false) DESC, pa.paper_id, st.triple_index
WITH k, collect({{paper_id: pa.paper_id, title: pa.title, year: pa.year, triple_index: st.triple_index,
                 role: st.role, section: st.section, mention: st.mention, ev: {_QUOTES}}}) AS items
RETURN k AS key, items[..$per] AS items
"""


# Rows {i, items}: per triple (pk, ck, sk) of $rows, the papers that state it with the three STATES
# edges of that statement (same paper, same triple_index) and their quotes.
TRIPLE_EVIDENCE = f"""
UNWIND $rows AS r
MATCH (pa:Paper)-[sp:STATES {{role: 'problem'}}]->(:Problem {{key: r.pk}})
MATCH (pa)-[sc:STATES {{role: 'challenge'}}]->(:Challenge {{key: r.ck}})
WHERE sc.triple_index = sp.triple_index
MATCH (pa)-[ss:STATES {{role: 'solution'}}]->(:Solution {{key: r.sk}})
WHERE ss.triple_index = sp.triple_index
WITH r, pa, sp, sc, ss ORDER BY r.i, pa.paper_id, sp.triple_index
WITH r, collect({{paper_id: pa.paper_id, title: pa.title, year: pa.year, triple_index: sp.triple_index,
                 section: sp.section, problem: {_quotes('sp')}, challenge: {_quotes('sc')},
                 solution: {_quotes('ss')}}}) AS items
RETURN r.i AS i, items[..$per] AS items
"""


def papers_stating(label: str) -> str:
    """Ids of the papers that state any of the given node keys."""
    lb = _label(label)
    return f"""
UNWIND $keys AS k
MATCH (pa:Paper)-[:STATES]->(:{lb} {{key: k}})
RETURN DISTINCT pa.paper_id AS paper_id
"""
