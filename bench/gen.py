#!/usr/bin/env python3
"""Generate a synthetic, valid strata module for benchmarking `strata check`.

    python3 bench/gen.py --models N --seed S > out.strata

The output is deterministic for a given (--models, --seed, other flags).

Shape of the module
-------------------
* A handful of sources (--sources, default 8), each with 5-10 typed columns
  (int64, float64, string, date, bool, money). Every source has the five
  "role" columns the models need: a primary key (int64 nonnull), a foreign
  key (int64), a measure (float64), a count (int64) and a label (string);
  the rest are extras (date, bool, money, ...) used by filters.
* A few contracts over the standard model columns.
* N models. Model i reads a source or an earlier model (mostly a recent one,
  so chains form) and joins 0-2 other sources/earlier models (fan-in). Models
  are written in a shuffled order (use --topo for dependency order), so the
  checker has to order them itself. The dependency depth is capped
  (--max-depth, default 40): the reference checker orders models with a
  recursive DFS and real projects are not thousands of levels deep.
* Every model outputs the same fixed column set, so downstream models can
  rely on it:  key: int64 (nonnull), ref: int64, val: float64, qty: int64,
  txt: string.
  - Plain models end with `select { key = .., ref = .., val = .., qty = ..,
    txt = .. }` (then maybe `sort` / `take`).
  - Grouped models end with `group { key, ref } ( aggregate { qty = count(),
    val = sum(..), txt = max(..) } [filter qty > n] )`, after `let key = ..`
    and `let ref = ..` so the group keys carry the standard names.
* Columns of the from-input are referenced bare; columns of joined inputs
  are always qualified (`dim.col`). Nullability is tracked so that a model
  only declares `-> contract C` when the reference checker accepts it.
"""

import argparse
import random
import sys

STD = ["key", "ref", "val", "qty", "txt"]
STD_TYPES = {"key": "int64", "ref": "int64", "val": "float64", "qty": "int64", "txt": "string"}

SOURCE_NAMES = [
    "orders", "customers", "products", "shipments", "carriers", "payments",
    "events", "accounts", "regions", "suppliers", "invoices", "warehouses",
    "returns", "campaigns", "sessions", "tickets",
]

# Role column name pools (none of these is a keyword or type keyword).
FK_NAMES = ["customer_id", "product_id", "carrier_id", "account_id", "region_id", "parent_id", "owner_id"]
VAL_NAMES = ["amount", "weight", "score", "ratio", "distance", "rate"]
QTY_NAMES = ["units", "quantity", "visits", "items", "attempts", "seats"]
TXT_NAMES = ["name", "status", "title", "country", "channel", "category"]
# Extra columns: (name pool, type)
EXTRA = [
    (["created_on", "shipped_on", "due_on", "opened_on"], "date"),
    (["is_active", "is_void", "is_test", "flagged"], "bool"),
    (["price", "fee", "cost", "balance"], "money"),
    (["note", "code", "segment", "city"], "string"),
    (["discount", "tax_rate", "margin"], "float64"),
    (["version", "priority", "rank_no"], "int64"),
]

# Contracts over the standard columns: name -> list of (field, type, nonnull, extra annotations)
CONTRACTS = [
    ("KeyedRow", [("key", "int64", True, ""), ("ref", "int64", False, "")]),
    ("Measure", [("key", "int64", True, "primary_key"), ("val", "float64", False, ""), ("qty", "int64", False, "")]),
    ("Labelled", [("key", "int64", True, ""), ("txt", "string", False, "classification: internal protected")]),
    ("Counted", [("qty", "int64", True, ""), ("val", "float64", False, "")]),
    ("FullRow", [("key", "int64", True, "unique"), ("ref", "int64", False, ""), ("val", "float64", False, ""),
                 ("qty", "int64", False, ""), ("txt", "string", False, "")]),
]

PREFIXES = ["stg", "int", "fct", "dim", "agg", "rpt", "mart"]


class Input:
    """A source or a model, as seen by a reader: role -> (column name, nullable)."""

    def __init__(self, name, roles, extras, depth, is_source):
        self.name = name
        self.roles = roles          # role -> (col, nullable)
        self.extras = extras        # list of (col, type, nullable)
        self.depth = depth
        self.is_source = is_source

    def col(self, role):
        return self.roles[role][0]

    def nullable(self, role):
        return self.roles[role][1]


def gen_sources(rng, count):
    names = SOURCE_NAMES[:]
    rng.shuffle(names)
    names = names[:count]
    out = []
    text = []
    for sname in names:
        cols = []  # (name, type, nullable, annot)
        roles = {}
        cols.append(("id", "int64", False, "nonnull primary_key"))
        roles["key"] = ("id", False)
        fk = rng.choice(FK_NAMES)
        fk_nonnull = rng.random() < 0.5
        cols.append((fk, "int64", not fk_nonnull, "nonnull" if fk_nonnull else ""))
        roles["ref"] = (fk, not fk_nonnull)
        for role, pool, ty in (("val", VAL_NAMES, "float64"), ("qty", QTY_NAMES, "int64"), ("txt", TXT_NAMES, "string")):
            n = rng.choice(pool)
            nonnull = rng.random() < 0.4
            cols.append((n, ty, not nonnull, "nonnull" if nonnull else ""))
            roles[role] = (n, not nonnull)
        extras = []
        n_extra = rng.randint(0, 5)
        pool = EXTRA[:]
        rng.shuffle(pool)
        for names_pool, ty in pool[:n_extra]:
            n = rng.choice(names_pool)
            nonnull = rng.random() < 0.3
            cols.append((n, ty, not nonnull, "nonnull" if nonnull else ""))
            extras.append((n, ty, not nonnull))
        # Shuffle column order a bit (keep id first).
        rest = cols[1:]
        rng.shuffle(rest)
        cols = cols[:1] + rest
        width = max(len(c[0]) for c in cols)
        body = ",\n".join(
            "    %s: %s%s" % ((c[0]).ljust(width), c[1], (" " + c[3]) if c[3] else "") for c in cols
        )
        text.append('source %s(ns: "bench", dataset: "%s") {\n  columns: {\n%s,\n  }\n}\n' % (sname, sname, body))
        out.append(Input(sname, roles, extras, 0, True))
    return out, text


def gen_contracts():
    text = []
    for name, fields in CONTRACTS:
        lines = []
        for f, ty, nonnull, ann in fields:
            a = []
            if nonnull and "primary_key" not in ann:
                a.append("nonnull")
            if ann:
                a.append(ann)
            lines.append("  %s: %s%s" % (f, ty, (" " + " ".join(a)) if a else ""))
        text.append("contract %s {\n%s\n}\n" % (name, "\n".join(lines)))
    return text


def contract_ok(fields, nullable):
    for f, _ty, nonnull, ann in fields:
        if (nonnull or "primary_key" in ann) and nullable[f]:
            return False
    return True


def filter_terms(rng, src, joins):
    """Comparison terms over the from-input (bare) and joined inputs (qualified)."""
    terms = []
    terms.append("%s > %s" % (src.col("val"), rng.choice(["0.5", "10.0", "99.9", "1.25"])))
    terms.append("%s >= %d" % (src.col("qty"), rng.randint(0, 5)))
    terms.append('%s != "%s"' % (src.col("txt"), rng.choice(["void", "test", "n/a", "X"])))
    terms.append("%s < %d" % (src.col("key"), rng.randint(1000, 10 ** 7)))
    for n, ty, _nl in src.extras:
        if ty == "bool":
            terms.append("%s == %s" % (n, rng.choice(["true", "false"])))
        elif ty == "money":
            terms.append('%s > cast(%d, "money")' % (n, rng.randint(1, 500)))
        elif ty == "date":
            terms.append("date_add(%s, days: %d) > %s" % (n, rng.randint(1, 30), n))
        elif ty == "int64":
            terms.append("%s <= %d" % (n, rng.randint(1, 100)))
        elif ty == "float64":
            terms.append("%s < %s" % (n, rng.choice(["0.9", "0.5", "2.0"])))
        elif ty == "string":
            terms.append('upper(%s) != "%s"' % (n, rng.choice(["NONE", "UNKNOWN"])))
    for d in joins:
        terms.append("%s.%s >= %d" % (d.name, d.col("qty"), rng.randint(0, 3)))
        terms.append("%s.%s < %s" % (d.name, d.col("val"), rng.choice(["1000.0", "500.0"])))
    return terms


def gen_model(rng, i, name, models, sources, max_depth):
    # ---- choose inputs
    def pick_recent():
        if not models or rng.random() < 0.12:
            return rng.choice(sources)
        back = min(len(models) - 1, int(rng.expovariate(1 / 8.0)))
        cand = models[len(models) - 1 - back]
        if cand.depth >= max_depth:
            # fall back to a shallow model or a source
            shallow = [m for m in models[-50:] if m.depth < max_depth // 2]
            return rng.choice(shallow) if shallow and rng.random() < 0.7 else rng.choice(sources)
        return cand

    def pick_any(exclude):
        for _ in range(20):
            if models and rng.random() < 0.6:
                c = rng.choice(models)
            else:
                c = rng.choice(sources)
            if c.name not in exclude and c.depth < max_depth:
                return c
        return None

    src = pick_recent()
    n_joins = rng.choices([0, 1, 2], weights=[35, 45, 20])[0]
    joins = []
    kinds = []
    used = {src.name}
    for _ in range(n_joins):
        d = pick_any(used)
        if d is None:
            break
        used.add(d.name)
        joins.append(d)
        kinds.append(rng.choice(["join_left", "join_inner"]))
    grouped = rng.random() < 0.3
    depth = 1 + max([src.depth] + [d.depth for d in joins])

    lines = []
    lines.append("  from %s" % src.name)
    for d, kind in zip(joins, kinds):
        # left side: the from input's foreign key (or key), bare or qualified
        lrole = rng.choice(["ref", "ref", "key"])
        lcol = src.col(lrole)
        left = ("%s.%s" % (src.name, lcol)) if rng.random() < 0.6 else lcol
        right = "%s.%s" % (d.name, d.col("key"))
        cond = ("%s == %s" % (left, right)) if rng.random() < 0.8 else ("%s == %s" % (right, left))
        r = rng.random()
        if r < 0.45:
            cond += " expect many_to_one"
        elif r < 0.6 and kind == "join_inner":
            cond += " and %s.%s > 0.0" % (d.name, d.col("val"))
        lines.append("  %s %s on %s" % (kind, d.name, cond))

    # filter: 1-3 comparisons joined with `and`
    if rng.random() < 0.8:
        terms = filter_terms(rng, src, joins)
        k = rng.choice([1, 2, 2, 3])
        chosen = rng.sample(terms, min(k, len(terms)))
        lines.append("  filter " + " and ".join(chosen))

    nullable = {}
    if not grouped:
        lets = []
        # val
        r = rng.random()
        if joins and r < 0.4:
            d = joins[0]
            lets.append("  let x_val = %s * %s + coalesce(%s.%s, 0.0)" % (src.col("val"), rng.choice(["2.0", "1.5", "0.25"]), d.name, d.col("val")))
            val_expr, nullable["val"] = "x_val", src.nullable("val")
        elif r < 0.7:
            lets.append("  let x_val = %s / 2" % src.col("val"))
            val_expr, nullable["val"] = "x_val", src.nullable("val")
        else:
            val_expr, nullable["val"] = src.col("val"), src.nullable("val")
        # txt
        r = rng.random()
        if joins and r < 0.3:
            d = joins[-1]
            lets.append("  let x_txt = concat(%s, \"-\", %s.%s)" % (src.col("txt"), d.name, d.col("txt")))
            txt_expr = "lower(x_txt)"
            nullable["txt"] = src.nullable("txt") or d.nullable("txt")
        elif r < 0.7:
            txt_expr, nullable["txt"] = "upper(%s)" % src.col("txt"), src.nullable("txt")
        else:
            txt_expr, nullable["txt"] = src.col("txt"), src.nullable("txt")
        # qty
        r = rng.random()
        if r < 0.4:
            qty_expr = "%s * 2" % src.col("qty")
        elif r < 0.6:
            lets.append("  let x_qty = %s + %d" % (src.col("qty"), rng.randint(1, 9)))
            qty_expr = "x_qty"
        else:
            qty_expr = src.col("qty")
        nullable["qty"] = src.nullable("qty")
        # ref: from a joined key or the from input's ref
        if joins and rng.random() < 0.4:
            d = rng.choice(joins)
            ref_expr, nullable["ref"] = "%s.%s" % (d.name, d.col("key")), d.nullable("key")
        else:
            ref_expr, nullable["ref"] = src.col("ref"), src.nullable("ref")
        key_expr, nullable["key"] = src.col("key"), src.nullable("key")
        if src.col("key") == "key" and rng.random() < 0.5:
            key_expr = "%s.key" % src.name  # qualified by the from alias
        lines.extend(lets)
        assigns = {"key": key_expr, "ref": ref_expr, "val": val_expr, "qty": qty_expr, "txt": txt_expr}
        lines.append("  select { %s }" % ", ".join("%s = %s" % (c, assigns[c]) for c in STD))
        if rng.random() < 0.5:
            keys = rng.sample(["key desc", "qty desc", "txt", "val", "ref"], rng.randint(1, 2))
            lines.append("  sort { %s }" % ", ".join(keys))
        if rng.random() < 0.3:
            lines.append("  take %d" % rng.choice([10, 100, 1000, 5000]))
    else:
        # group by key, ref; the lets give the keys their standard names
        if src.col("key") != "key" or rng.random() < 0.5:
            lines.append("  let key = %s" % src.col("key"))
        ref_src = src.col("ref")
        if rng.random() < 0.3:
            lines.append("  let ref = %s %% %d" % (src.col("ref"), rng.randint(2, 50)))
        elif ref_src != "ref":
            lines.append("  let ref = %s" % ref_src)
        nullable["key"] = src.nullable("key")
        nullable["ref"] = src.nullable("ref")
        if rng.random() < 0.5:
            lines.append("  let x_val = %s * 1.5" % src.col("val"))
            vexpr = "x_val"
        else:
            vexpr = src.col("val")
        if joins and rng.random() < 0.3:
            d = joins[0]
            vexpr = "%s + coalesce(%s.%s, 0.0)" % (vexpr, d.name, d.col("val"))
        nullable["val"] = src.nullable("val")
        nullable["qty"] = False
        nullable["txt"] = src.nullable("txt")
        aggs = ["qty = count()", "val = sum(%s)" % vexpr, "txt = max(%s)" % rng.choice([src.col("txt"), "upper(%s)" % src.col("txt")])]
        body = "aggregate { %s }" % ", ".join(aggs)
        if rng.random() < 0.4:
            body += " filter qty > %d" % rng.randint(1, 5)
        lines.append("  group { key, ref } ( %s )" % body)
        if rng.random() < 0.5:
            lines.append("  sort { %s }" % rng.choice(["qty desc", "key", "val desc, key"]))
        if rng.random() < 0.3:
            lines.append("  take %d" % rng.choice([10, 100, 1000]))

    header = "model %s" % name
    if rng.random() < 0.35:
        ok = [c for c in CONTRACTS if contract_ok(c[1], nullable)]
        if ok:
            header += " -> contract %s" % rng.choice(ok)[0]
    text = "%s {\n%s\n}\n" % (header, "\n".join(lines))
    roles = {r: (r, nullable[r]) for r in STD}
    return Input(name, roles, [], depth, False), text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, required=True, help="number of models")
    ap.add_argument("--seed", type=int, default=1, help="random seed (output is deterministic per seed)")
    ap.add_argument("--sources", type=int, default=8, help="number of sources (max %d)" % len(SOURCE_NAMES))
    ap.add_argument("--max-depth", type=int, default=40, help="cap on the model dependency depth")
    ap.add_argument("--topo", action="store_true", help="write models in dependency order (default: shuffled)")
    args = ap.parse_args()
    if args.models < 0 or not 1 <= args.sources <= len(SOURCE_NAMES):
        ap.error("bad --models/--sources")

    rng = random.Random(args.seed)
    sources, src_text = gen_sources(rng, args.sources)
    contract_text = gen_contracts()
    models, model_text = [], []
    width = len(str(max(args.models, 1)))
    for i in range(args.models):
        name = "%s_%0*d" % (rng.choice(PREFIXES), width, i)
        m, t = gen_model(rng, i, name, models, sources, args.max_depth)
        models.append(m)
        model_text.append(t)
    if not args.topo:
        rng.shuffle(model_text)

    out = sys.stdout
    out.write("// Generated by bench/gen.py --models %d --seed %d --sources %d --max-depth %d%s\n"
              % (args.models, args.seed, args.sources, args.max_depth, " --topo" if args.topo else ""))
    out.write("// %d sources, %d contracts, %d models; max dependency depth %d\n\n"
              % (len(sources), len(CONTRACTS), len(models), max([m.depth for m in models] or [0])))
    for t in src_text:
        out.write(t + "\n")
    for t in contract_text:
        out.write(t + "\n")
    for t in model_text:
        out.write(t + "\n")


if __name__ == "__main__":
    main()
