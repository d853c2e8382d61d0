#pragma once
// Spec documents as text: JSON or YAML (dSort, ishard and ETL specs; AIStore
// users write dSort specs in YAML). Both are read into the same JSON value,
// which the spec parsers check field by field, so a spec means the same in
// either form.
//
// YAML rules (the YAML 1.2 core schema, the part a spec needs):
// - one document; mappings with scalar keys, sequences, scalars;
// - a plain scalar is null (``, `~`, `null`), a boolean (`true`/`false`, any
//   case spelling YAML 1.2 allows), an integer (decimal, `0x` hex, `0o`
//   octal), a float (`1.5`, `1e3`, `.inf`, `.nan`), or else a string; a
//   quoted scalar is always a string; `!!str`, `!!int`, `!!float`,
//   `!!bool`, `!!null` are honoured, other tags refused;
// - anchors and aliases are refused (a spec has no use for them, and
//   expanding them is how a small document becomes a huge one);
// - a key given twice is an error; at most 64 levels and 1,000,000 values.
// Every error is a BadRequest "invalid <what> spec: YAML line L, column C:
// ..." (1-based), so a person can find it in the file.
//
// Thread safety: pure functions.

#include "api/result.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::spec {

enum class SpecFormat { Json, Yaml };

// The format a Content-Type names: application/json (or none, text/plain,
// application/octet-stream or curl -d's application/x-www-form-urlencoded:
// JSON, as before YAML was read) or application/yaml,
// application/x-yaml, text/yaml, text/x-yaml. Parameters (";charset=...")
// are ignored. nullopt for anything else (the caller answers 415).
std::optional<SpecFormat> specFormatForContentType(std::string_view contentType);
// .yaml and .yml files are YAML; any other name is JSON.
SpecFormat specFormatForPath(std::string_view path);
std::string_view contentTypeFor(SpecFormat f);

// The document as JSON. `what` names the spec in errors ("dsort").
api::Result<nlohmann::json> parseSpecText(std::string_view text, SpecFormat format, std::string_view what);

// A JSON value written as block-style YAML that parseSpecText reads back to
// the same value (strings that would read as another type are quoted).
std::string toYaml(const nlohmann::json& j);

}  // namespace tessera::spec
