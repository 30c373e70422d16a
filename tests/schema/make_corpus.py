#!/usr/bin/env python3
"""Writes the compatibility corpus (tests/schema/corpus/*.json) from the pairs below.

Each pair is an earlier schema (old) and a new one, with what the Schema Registry answers in each
direction, written by hand from the registry's documented rules and examples (the `src` of each
pair says where):
  backward: the new schema reads data written with the old one (BACKWARD),
  forward:  the old schema reads data written with the new one (FORWARD).
Each pair becomes four cases, by the registry's documented definition of the levels: NONE
(always compatible, nothing checked), BACKWARD, FORWARD, FULL (both: the backward messages, then
the forward ones). Histories (the transitive levels) are written out case by case at the end.
An expected message is [errorType, path] or [errorType, path, additionalInfo]; a few carry the
registry's description verbatim where its documentation or a published answer quotes it.

Run: python3 tests/schema/make_corpus.py   (rewrites the data files; commit them)
"""
import json, os

EVOL = "https://docs.confluent.io/platform/current/schema-registry/fundamentals/schema-evolution.html"
AVRO = "https://avro.apache.org/docs/1.11.1/specification/#schema-resolution"
API = "https://docs.confluent.io/platform/current/schema-registry/develop/api.html#compatibility"
JSONDOC = "https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/serdes-json.html#json-schema-compatibility-rules"
YOKOTA = "https://yokota.blog/2021/03/29/understanding-json-schema-compatibility/"
ISSUE438 = "https://github.com/confluentinc/schema-registry/issues/438"
ISSUE3144 = "https://github.com/confluentinc/schema-registry/issues/3144"


def rec(fields, name="myrecord", **extra):
    r = {"type": "record", "name": name, "fields": fields}
    r.update(extra)
    return r


def f(name, type_, **extra):
    d = {"name": name, "type": type_}
    d.update(extra)
    return d


def enum(symbols, name="Color", **extra):
    e = {"type": "enum", "name": name, "symbols": symbols}
    e.update(extra)
    return e


TM = "TYPE_MISMATCH"
RF = "READER_FIELD_MISSING_DEFAULT_VALUE"
MU = "MISSING_UNION_BRANCH"
ME = "MISSING_ENUM_SYMBOLS"
NM = "NAME_MISMATCH"
FS = "FIXED_SIZE_MISMATCH"


def tm(path, reader, writer):
    return [TM, path, f"reader type: {reader} not compatible with writer type: {writer}"]


def mu(path, writer):
    return [MU, path, f"reader union lacking writer type: {writer}"]


S = {"type": "string"}
# (id, src, old, new, backward, forward)
AVRO_PAIRS = [
    ("add-field-with-default", EVOL, rec([f("f1", "string")]), rec([f("f1", "string"), f("f2", "string", default="foo")]), [], []),
    ("add-field-without-default", ISSUE3144, rec([f("f1", "string")]), rec([f("f1", "string"), f("f2", "string")]),
     [[RF, "/fields/1", "f2", "The field 'f2' at path '/fields/1' in the new schema has no default value and is missing in the old schema"]], []),
    ("remove-field-with-default", EVOL, rec([f("f1", "string"), f("f2", "string", default="x")]), rec([f("f1", "string")]), [], []),
    ("remove-field-without-default", EVOL, rec([f("f1", "string"), f("f2", "string")]), rec([f("f1", "string")]), [],
     [[RF, "/fields/1", "f2", "The field 'f2' at path '/fields/1' in the old schema has no default value and is missing in the new schema"]]),
    ("int-to-long", AVRO, rec([f("a", "int")]), rec([f("a", "long")]), [], [tm("/fields/0/type", "INT", "LONG")]),
    ("int-to-float", AVRO, rec([f("a", "int")]), rec([f("a", "float")]), [], [tm("/fields/0/type", "INT", "FLOAT")]),
    ("int-to-double", AVRO, rec([f("a", "int")]), rec([f("a", "double")]), [], [tm("/fields/0/type", "INT", "DOUBLE")]),
    ("long-to-float", AVRO, rec([f("a", "long")]), rec([f("a", "float")]), [], [tm("/fields/0/type", "LONG", "FLOAT")]),
    ("long-to-double", AVRO, rec([f("a", "long")]), rec([f("a", "double")]), [], [tm("/fields/0/type", "LONG", "DOUBLE")]),
    ("float-to-double", AVRO, rec([f("a", "float")]), rec([f("a", "double")]), [], [tm("/fields/0/type", "FLOAT", "DOUBLE")]),
    ("string-to-bytes", AVRO, rec([f("a", "string")]), rec([f("a", "bytes")]), [], []),
    ("bytes-to-string", AVRO, rec([f("a", "bytes")]), rec([f("a", "string")]), [], []),
    ("long-to-int", AVRO, rec([f("a", "long")]), rec([f("a", "int")]), [tm("/fields/0/type", "INT", "LONG")], []),
    ("double-to-float", AVRO, rec([f("a", "double")]), rec([f("a", "float")]), [tm("/fields/0/type", "FLOAT", "DOUBLE")], []),
    ("int-to-string", API, rec([f("a", "int")]), rec([f("a", "string")]),
     [tm("/fields/0/type", "STRING", "INT") + ["The type (path '/fields/0/type') of a field in the new schema does not match with the old schema"]],
     [tm("/fields/0/type", "INT", "STRING")]),
    ("string-to-int", AVRO, rec([f("a", "string")]), rec([f("a", "int")]), [tm("/fields/0/type", "INT", "STRING")], [tm("/fields/0/type", "STRING", "INT")]),
    ("boolean-to-string", AVRO, rec([f("a", "boolean")]), rec([f("a", "string")]), [tm("/fields/0/type", "STRING", "BOOLEAN")], [tm("/fields/0/type", "BOOLEAN", "STRING")]),
    ("make-optional", EVOL, rec([f("a", "string")]), rec([f("a", ["null", "string"], default=None)]), [], [tm("/fields/0/type/0", "STRING", "NULL")]),
    ("make-required", EVOL, rec([f("a", ["null", "string"], default=None)]), rec([f("a", "string")]), [tm("/fields/0/type/0", "STRING", "NULL")], []),
    ("union-add-branch", AVRO, rec([f("a", ["null", "string"], default=None)]), rec([f("a", ["null", "string", "int"], default=None)]), [], [mu("/fields/0/type/2", "INT")]),
    ("union-remove-branch", AVRO, rec([f("a", ["null", "string", "int"], default=None)]), rec([f("a", ["null", "string"], default=None)]), [mu("/fields/0/type/2", "INT")], []),
    ("union-branch-promoted", AVRO, rec([f("a", ["null", "int"], default=None)]), rec([f("a", ["null", "long"], default=None)]), [], [mu("/fields/0/type/1", "LONG")]),
    ("union-to-wider-non-null", AVRO, rec([f("a", "int")]), rec([f("a", ["int", "string"])]), [], [tm("/fields/0/type/1", "INT", "STRING")]),
    ("enum-add-symbol", EVOL, rec([f("c", enum(["RED", "GREEN"]))]), rec([f("c", enum(["RED", "GREEN", "BLUE"]))]), [], [[ME, "/fields/0/type/symbols", "[BLUE]"]]),
    ("enum-remove-symbol", EVOL, rec([f("c", enum(["RED", "GREEN", "BLUE"]))]), rec([f("c", enum(["RED", "GREEN"]))]), [[ME, "/fields/0/type/symbols", "[BLUE]"]], []),
    ("enum-remove-two-symbols", AVRO, rec([f("c", enum(["RED", "GREEN", "BLUE", "AMBER"]))]), rec([f("c", enum(["RED", "GREEN"]))]), [[ME, "/fields/0/type/symbols", "[AMBER, BLUE]"]], []),
    ("enum-add-symbol-reader-default", AVRO, rec([f("c", enum(["RED", "GREEN"], default="RED"))]), rec([f("c", enum(["RED", "GREEN", "BLUE"], default="RED"))]), [], []),
    ("enum-remove-symbol-new-default", AVRO, rec([f("c", enum(["RED", "GREEN", "BLUE"]))]), rec([f("c", enum(["RED", "GREEN"], default="RED"))]), [], []),
    ("enum-renamed", AVRO, rec([f("c", enum(["RED"], name="Color"))]), rec([f("c", enum(["RED"], name="Colour"))]),
     [[NM, "/fields/0/type/name", "expected: Color"]], [[NM, "/fields/0/type/name", "expected: Colour"]]),
    ("enum-renamed-with-alias", AVRO, rec([f("c", enum(["RED"], name="Color"))]), rec([f("c", enum(["RED"], name="Colour", aliases=["Color"]))]),
     [], [[NM, "/fields/0/type/name", "expected: Colour"]]),
    ("record-renamed", AVRO, rec([f("f1", "string")], name="myrecord"), rec([f("f1", "string")], name="myrecord2"),
     [[NM, "/name", "expected: myrecord", "The name of the schema has changed (path '/name')"]], [[NM, "/name", "expected: myrecord2"]]),
    ("record-renamed-with-alias", AVRO, rec([f("f1", "string")], name="myrecord"), rec([f("f1", "string")], name="v2", aliases=["myrecord"]),
     [], [[NM, "/name", "expected: v2"]]),
    ("namespace-changed", AVRO, rec([f("f1", "string")], name="r", namespace="com.acme.a"), rec([f("f1", "string")], name="r", namespace="com.acme.b"), [], []),
    ("record-renamed-namespaced", AVRO, rec([f("f1", "string")], name="r", namespace="com.acme"), rec([f("f1", "string")], name="s", namespace="com.acme"),
     [[NM, "/name", "expected: com.acme.r"]], [[NM, "/name", "expected: com.acme.s"]]),
    ("field-renamed-with-alias", AVRO, rec([f("f1", "string")]), rec([f("f2", "string", aliases=["f1"])]), [], [[RF, "/fields/0", "f1"]]),
    ("field-renamed-customer-email", EVOL, rec([f("id", "long"), f("customer_email", "string")]), rec([f("id", "long"), f("email", "string")]),
     [[RF, "/fields/1", "email"]], [[RF, "/fields/1", "customer_email"]]),
    ("fixed-size-changed", AVRO, rec([f("h", {"type": "fixed", "name": "Hash", "size": 16})]), rec([f("h", {"type": "fixed", "name": "Hash", "size": 8})]),
     [[FS, "/fields/0/type/size", "expected: 16, found: 8"]], [[FS, "/fields/0/type/size", "expected: 8, found: 16"]]),
    ("fixed-renamed", AVRO, rec([f("h", {"type": "fixed", "name": "Hash", "size": 16})]), rec([f("h", {"type": "fixed", "name": "Digest", "size": 16})]),
     [[NM, "/fields/0/type/name", "expected: Hash"]], [[NM, "/fields/0/type/name", "expected: Digest"]]),
    ("array-items-promoted", AVRO, rec([f("xs", {"type": "array", "items": "int"})]), rec([f("xs", {"type": "array", "items": "long"})]), [], [tm("/fields/0/type/items", "INT", "LONG")]),
    ("map-values-changed", AVRO, rec([f("m", {"type": "map", "values": "string"})]), rec([f("m", {"type": "map", "values": "int"})]),
     [tm("/fields/0/type/values", "INT", "STRING")], [tm("/fields/0/type/values", "STRING", "INT")]),
    ("array-to-map", AVRO, rec([f("x", {"type": "array", "items": "string"})]), rec([f("x", {"type": "map", "values": "string"})]),
     [tm("/fields/0/type", "MAP", "ARRAY")], [tm("/fields/0/type", "ARRAY", "MAP")]),
    ("nested-add-field-without-default", AVRO, rec([f("inner", rec([f("x", "int")], name="Inner"))]), rec([f("inner", rec([f("x", "int"), f("y", "int")], name="Inner"))]),
     [[RF, "/fields/0/type/fields/1", "y"]], []),
    ("nested-remove-field-without-default", AVRO, rec([f("inner", rec([f("x", "int"), f("y", "int")], name="Inner"))]), rec([f("inner", rec([f("x", "int")], name="Inner"))]),
     [], [[RF, "/fields/0/type/fields/1", "y"]]),
    ("root-int-to-long", AVRO, "int", "long", [], [tm("/", "INT", "LONG")]),
    ("root-string-to-bytes", AVRO, "string", "bytes", [], []),
    ("root-int-to-boolean", "https://docs.confluent.io/platform/current/schema-registry/fundamentals/schema-evolution.html#compatibility-types", "int", "boolean",
     [tm("/", "BOOLEAN", "INT") + ["The type (path '/') of a field in the new schema does not match with the old schema"]], [tm("/", "INT", "BOOLEAN")]),
    ("identical", API, rec([f("f1", "string"), f("f2", "int")]), rec([f("f1", "string"), f("f2", "int")]), [], []),
    ("fields-reordered", AVRO, rec([f("f1", "string"), f("f2", "int")]), rec([f("f2", "int"), f("f1", "string")]), [], []),
    ("default-changed", AVRO, rec([f("f1", "string", default="a")]), rec([f("f1", "string", default="b")]), [], []),
    ("two-fields-added-without-default", ISSUE3144, rec([f("f1", "string")]), rec([f("f1", "string"), f("f2", "string"), f("f3", "int")]),
     [[RF, "/fields/1", "f2"], [RF, "/fields/2", "f3"]], []),
    ("type-change-and-new-field", API, rec([f("a", "int")]), rec([f("a", "string"), f("b", "string")]),
     [tm("/fields/0/type", "STRING", "INT"), [RF, "/fields/1", "b"]], [tm("/fields/0/type", "INT", "STRING")]),
    ("optional-int", EVOL, rec([f("r", "int")]), rec([f("r", ["null", "int"], default=None)]), [], [tm("/fields/0/type/0", "INT", "NULL")]),
    ("recursive-list-value-promoted", AVRO,
     rec([f("value", "int"), f("next", ["null", "Node"], default=None)], name="Node"),
     rec([f("value", "long"), f("next", ["null", "Node"], default=None)], name="Node"), [], [tm("/fields/0/type", "INT", "LONG")]),
    ("decimal-precision-changed", "https://github.com/apache/avro/pull/247",
     rec([f("amount", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2})]),
     rec([f("amount", {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2})]), [], []),
    ("logical-type-added", AVRO, rec([f("at", "long")]), rec([f("at", {"type": "long", "logicalType": "timestamp-millis"})]), [], []),
    ("enum-to-string", AVRO, rec([f("c", enum(["RED"]))]), rec([f("c", "string")]), [tm("/fields/0/type", "STRING", "ENUM")], [tm("/fields/0/type", "ENUM", "STRING")]),
    ("add-optional-null-default", EVOL, rec([f("f1", "string")]), rec([f("f1", "string"), f("f2", ["null", "string"], default=None)]), [], []),
    ("default-added-to-existing", AVRO, rec([f("f1", "string")]), rec([f("f1", "string", default="")]), [], []),
    ("enum-default-added", AVRO, rec([f("c", enum(["RED", "GREEN"]))]), rec([f("c", enum(["RED", "GREEN"], default="RED"))]), [], []),
    ("record-field-to-int", AVRO, rec([f("x", rec([f("a", "int")], name="X"))]), rec([f("x", "int")]),
     [tm("/fields/0/type", "INT", "RECORD")], [tm("/fields/0/type", "RECORD", "INT")]),
]

J = "JSON"
def obj(props, required=None, additional=None, **extra):
    o = {"type": "object", "properties": props}
    if required is not None:
        o["required"] = required
    if additional is not None:
        o["additionalProperties"] = additional
    o.update(extra)
    return o

STR = {"type": "string"}
INT = {"type": "integer"}
JSON_PAIRS = [
    ("open-add-optional-property", YOKOTA, obj({"a": STR}), obj({"a": STR, "b": INT}), [["PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", "#/properties/b"]], []),
    ("open-remove-property", YOKOTA, obj({"a": STR, "b": INT}), obj({"a": STR}), [], [["PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", "#/properties/b"]]),
    ("closed-add-optional-property", JSONDOC, obj({"a": STR}, additional=False), obj({"a": STR, "b": INT}, additional=False), [], [["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "#/properties/b"]]),
    ("closed-remove-property", JSONDOC, obj({"a": STR, "b": INT}, additional=False), obj({"a": STR}, additional=False), [["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "#/properties/b"]], []),
    ("closed-add-required-property", YOKOTA, obj({"a": STR}, additional=False), obj({"a": STR, "b": INT}, required=["b"], additional=False),
     [["REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", "#/properties/b"]], [["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "#/properties/b"]]),
    ("closed-add-required-with-default", YOKOTA, obj({"a": STR}, additional=False), obj({"a": STR, "b": {"type": "integer", "default": 0}}, required=["b"], additional=False),
     [], [["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "#/properties/b"]]),
    ("make-property-required", YOKOTA, obj({"a": STR}), obj({"a": STR}, required=["a"]), [["REQUIRED_ATTRIBUTE_ADDED", "#/required/a"]], []),
    ("make-property-optional", YOKOTA, obj({"a": STR}, required=["a"]), obj({"a": STR}), [], [["REQUIRED_ATTRIBUTE_ADDED", "#/required/a"]]),
    ("integer-to-number", YOKOTA, INT, {"type": "number"}, [], [["TYPE_NARROWED", "#"]]),
    ("number-to-integer", YOKOTA, {"type": "number"}, INT, [["TYPE_NARROWED", "#"]], []),
    ("string-to-integer", YOKOTA, STR, INT, [["TYPE_CHANGED", "#"]], [["TYPE_CHANGED", "#"]]),
    ("string-to-nullable-string", YOKOTA, STR, {"type": ["string", "null"]}, [], [["TYPE_CHANGED", "#"]]),
    ("max-length-decreased", YOKOTA, {"type": "string", "maxLength": 10}, {"type": "string", "maxLength": 5}, [["MAX_LENGTH_DECREASED", "#/maxLength"]], []),
    ("max-length-added", YOKOTA, STR, {"type": "string", "maxLength": 5}, [["MAX_LENGTH_ADDED", "#/maxLength"]], []),
    ("min-length-increased", YOKOTA, {"type": "string", "minLength": 1}, {"type": "string", "minLength": 3}, [["MIN_LENGTH_INCREASED", "#/minLength"]], []),
    ("minimum-increased", YOKOTA, {"type": "number", "minimum": 0}, {"type": "number", "minimum": 10}, [["MINIMUM_INCREASED", "#/minimum"]], []),
    ("maximum-removed", YOKOTA, {"type": "number", "maximum": 100}, {"type": "number"}, [], [["MAXIMUM_ADDED", "#/maximum"]]),
    ("pattern-changed", YOKOTA, {"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "^b"}, [["PATTERN_CHANGED", "#/pattern"]], [["PATTERN_CHANGED", "#/pattern"]]),
    ("enum-extended", YOKOTA, {"enum": ["a", "b"]}, {"enum": ["a", "b", "c"]}, [], [["ENUM_ARRAY_NARROWED", "#/enum"]]),
    ("enum-changed", YOKOTA, {"enum": ["a", "b"]}, {"enum": ["a", "c"]}, [["ENUM_ARRAY_CHANGED", "#/enum"]], [["ENUM_ARRAY_CHANGED", "#/enum"]]),
    ("open-the-model", YOKOTA, obj({"a": STR}, additional=False), obj({"a": STR}), [], [["ADDITIONAL_PROPERTIES_REMOVED", "#/additionalProperties"]]),
    ("array-items-changed", YOKOTA, {"type": "array", "items": STR}, {"type": "array", "items": INT}, [["TYPE_CHANGED", "#/items"]], [["TYPE_CHANGED", "#/items"]]),
    ("max-items-decreased", YOKOTA, {"type": "array", "items": STR, "maxItems": 10}, {"type": "array", "items": STR, "maxItems": 3}, [["MAX_ITEMS_DECREASED", "#/maxItems"]], []),
    ("nested-number-narrowed", YOKOTA, obj({"o": obj({"n": {"type": "number"}})}), obj({"o": obj({"n": INT})}), [["TYPE_NARROWED", "#/properties/o/properties/n"]], []),
    ("local-ref-type-changed", JSONDOC,
     {"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": STR}},
     {"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": INT}},
     [["TYPE_CHANGED", "#/properties/a"]], [["TYPE_CHANGED", "#/properties/a"]]),
    ("oneof-extended", YOKOTA, {"oneOf": [STR, INT]}, {"oneOf": [STR, INT, {"type": "boolean"}]}, [], [["SUM_TYPE_NARROWED", "#"]]),
    ("partially-open-covered", YOKOTA, obj({"a": STR}, additional=STR), obj({"a": STR, "b": STR}, additional=STR), [], []),
    ("partially-open-not-covered", YOKOTA, obj({"a": STR}, additional=STR), obj({"a": STR, "b": INT}, additional=STR),
     [["TYPE_CHANGED", "#/properties/b"], ["PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "#/properties/b"]],
     [["TYPE_CHANGED", "#/properties/b"], ["PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "#/properties/b"]]),
    ("empty-to-string", YOKOTA, {}, STR, [["TYPE_CHANGED", "#"]], []),
    ("json-identical", API, obj({"a": STR}, required=["a"]), obj({"a": STR}, required=["a"]), [], []),
    ("title-and-description-changed", YOKOTA, {"type": "string", "title": "A", "description": "x"}, {"type": "string", "title": "B", "description": "y"}, [], []),
    ("unique-items-added", YOKOTA, {"type": "array", "items": STR}, {"type": "array", "items": STR, "uniqueItems": True}, [["UNIQUE_ITEMS_ADDED", "#/uniqueItems"]], []),
]


def expect(msgs):
    out = []
    for m in msgs:
        e = {"errorType": m[0], "path": m[1]}
        if len(m) > 2:
            e["additionalInfo"] = m[2]
        if len(m) > 3:
            e["description"] = m[3]
        out.append(e)
    return out


def expand(fmt, pairs):
    cases = []
    for (cid, src, old, new, back, fwd) in pairs:
        for level, msgs in (("NONE", None), ("BACKWARD", back), ("FORWARD", fwd), ("FULL", None)):
            if level == "NONE":
                msgs = []
            elif level == "FULL":
                msgs = back + [m[:3] for m in fwd]  # the registry checks new-reads-old, then old-reads-new
            cases.append({"id": f"{fmt.lower()}-{cid}-{level.lower()}", "source": src, "schema_type": fmt, "level": level,
                          "previous": [{"version": 1, "schema": old}], "schema": new,
                          "compatible": not msgs, "checked_versions": [] if level == "NONE" else [1], "messages": expect(msgs)})
    return cases


def v(n, s, t="AVRO"):
    return {"version": n, "schema": s, "schema_type": t}

HISTORIES = [
    ("issue-438-backward-latest-only", ISSUE438, "BACKWARD",
     [v(1, rec([f("f1", "string")])), v(2, rec([f("f1", "string"), f("f2", "string", default="test")]))],
     rec([f("f1", "string"), f("f2", "string")]), True, [2], []),
    ("issue-438-backward-transitive", ISSUE438, "BACKWARD_TRANSITIVE",
     [v(1, rec([f("f1", "string")])), v(2, rec([f("f1", "string"), f("f2", "string", default="test")]))],
     rec([f("f1", "string"), f("f2", "string")]), False, [2, 1], [[RF, "/fields/1", "f2"]]),
    ("forward-latest-only", EVOL, "FORWARD",
     [v(1, rec([f("f1", "string"), f("f2", "string")])), v(2, rec([f("f1", "string"), f("f2", "string", default="x")]))],
     rec([f("f1", "string")]), True, [2], []),
    ("forward-transitive", EVOL, "FORWARD_TRANSITIVE",
     [v(1, rec([f("f1", "string"), f("f2", "string")])), v(2, rec([f("f1", "string"), f("f2", "string", default="x")]))],
     rec([f("f1", "string")]), False, [2, 1], [[RF, "/fields/1", "f2"]]),
    ("full-transitive-passes", EVOL, "FULL_TRANSITIVE",
     [v(1, rec([f("f1", "string")])), v(2, rec([f("f1", "string"), f("f2", "int", default=0)]))],
     rec([f("f1", "string"), f("f2", "int", default=0), f("f3", ["null", "string"], default=None)]), True, [2, 1], []),
    ("full-transitive-fails-on-oldest", EVOL, "FULL_TRANSITIVE",
     [v(1, rec([f("f1", "string"), f("f2", "int")])), v(2, rec([f("f1", "string"), f("f2", "int", default=0)]))],
     rec([f("f1", "string")]), False, [2, 1], [[RF, "/fields/1", "f2"]]),
    ("transitive-stops-at-first-failure", API, "BACKWARD_TRANSITIVE",
     [v(1, rec([f("a", "string")])), v(2, rec([f("a", "long")]))],
     rec([f("a", "int")]), False, [2], [tm("/fields/0/type", "INT", "LONG")]),
    ("transitive-all-pass", API, "BACKWARD_TRANSITIVE",
     [v(1, rec([f("a", "int")])), v(2, rec([f("a", "long")])), v(3, rec([f("a", "float")]))],
     rec([f("a", "double")]), True, [3, 2, 1], []),
    ("backward-only-latest-although-older-differs", API, "BACKWARD",
     [v(1, rec([f("a", "string")])), v(2, rec([f("a", "int")]))], rec([f("a", "int")]), True, [2], []),
    ("backward-transitive-older-differs", API, "BACKWARD_TRANSITIVE",
     [v(1, rec([f("a", "string")])), v(2, rec([f("a", "int")]))], rec([f("a", "int")]), False, [2, 1], [tm("/fields/0/type", "INT", "STRING")]),
    ("empty-history-compatible", "https://docs.confluent.io/platform/current/schema-registry/develop/api.html", "FULL_TRANSITIVE",
     [], rec([f("a", "int")]), True, [], []),
    ("none-with-history", EVOL, "NONE",
     [v(1, rec([f("a", "string")]))], rec([f("b", "int")]), True, [], []),
    ("different-schema-type", API, "BACKWARD",
     [v(1, {"type": "object"}, "JSON")], rec([f("a", "int")]), False, [1], [["DIFFERENT_SCHEMA_TYPE", "/"]]),
    ("json-forward-transitive", YOKOTA, "FORWARD_TRANSITIVE",
     [v(1, INT, "JSON"), v(2, {"type": "number"}, "JSON")], {"type": "number"}, False, [2, 1], [["TYPE_NARROWED", "#"]]),
    ("json-backward-transitive-open", YOKOTA, "BACKWARD_TRANSITIVE",
     [v(1, obj({"a": STR, "b": INT, "c": STR}), "JSON"), v(2, obj({"a": STR, "b": INT}), "JSON")], obj({"a": STR}), True, [2, 1], []),
    ("json-full-closed-add-optional", JSONDOC, "FULL",
     [v(1, obj({"a": STR}, additional=False), "JSON")], obj({"a": STR, "b": INT}, additional=False), False, [1],
     [["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "#/properties/b"]]),
]


def histories():
    out = []
    for (cid, src, level, prev, new, ok, checked, msgs) in HISTORIES:
        fmt = "JSON" if prev and prev[-1].get("schema_type") == "JSON" and cid.startswith("json") else ("JSON" if cid.startswith("json") else "AVRO")
        out.append({"id": "history-" + cid, "source": src, "schema_type": fmt, "level": level, "previous": prev,
                    "schema": new, "compatible": ok, "checked_versions": checked, "messages": expect(msgs)})
    return out


def main():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(here, exist_ok=True)
    files = {"avro_pairs.json": expand("AVRO", AVRO_PAIRS), "json_schema_pairs.json": expand("JSON", JSON_PAIRS),
             "histories.json": histories()}
    total = 0
    for name, cases in files.items():
        with open(os.path.join(here, name), "w") as fh:
            json.dump({"generated_by": "tests/schema/make_corpus.py", "cases": cases}, fh, indent=1)
            fh.write("\n")
        total += len(cases)
    print(f"{total} cases")


if __name__ == "__main__":
    main()
