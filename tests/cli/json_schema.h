// A small JSON Schema validator for the tests: the keywords docs/*.schema.json
// use (type, const, enum, required, properties, additionalProperties, items,
// minItems, maxItems, maxProperties, minimum, maximum, oneOf, anyOf, if/then/else, $ref to
// #/$defs/...). An unknown keyword is reported, so the schemas cannot drift
// beyond what is checked.
#ifndef OOMLENS_TESTS_CLI_JSON_SCHEMA_H_
#define OOMLENS_TESTS_CLI_JSON_SCHEMA_H_

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace oomlens {

class JsonSchema {
 public:
  explicit JsonSchema(nlohmann::json schema) : root_(std::move(schema)) {}

  /// The problems of doc ("/incidents/0/facts: ..."); empty when it is valid.
  std::vector<std::string> Validate(const nlohmann::json& doc) const {
    std::vector<std::string> errors;
    Check(root_, doc, "", &errors);
    return errors;
  }

 private:
  static bool HasType(const nlohmann::json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    return false;
  }

  bool Valid(const nlohmann::json& schema, const nlohmann::json& v) const {
    std::vector<std::string> errors;
    Check(schema, v, "", &errors);
    return errors.empty();
  }

  void Check(const nlohmann::json& schema, const nlohmann::json& v, const std::string& at,
             std::vector<std::string>* errors) const {
    static const std::set<std::string> kIgnored = {"$schema", "$id", "$defs", "title", "description"};
    auto fail = [&](const std::string& what) { errors->push_back((at.empty() ? "/" : at) + ": " + what); };
    for (const auto& [key, rule] : schema.items()) {
      if (kIgnored.count(key) || key == "then" || key == "else") continue;
      if (key == "$ref") {
        std::string ref = rule.get<std::string>();
        Check(root_.at(nlohmann::json::json_pointer(ref.substr(1))), v, at, errors);
      } else if (key == "type") {
        bool ok = false;
        for (const auto& t : rule.is_array() ? rule : nlohmann::json::array({rule})) ok = ok || HasType(v, t);
        if (!ok) fail("is not of type " + rule.dump());
      } else if (key == "const") {
        if (v != rule) fail("is not " + rule.dump());
      } else if (key == "enum") {
        if (std::find(rule.begin(), rule.end(), v) == rule.end())
          fail(v.dump() + " is not one of " + rule.dump());
      } else if (key == "required") {
        for (const auto& name : rule)
          if (v.is_object() && !v.contains(name.get<std::string>())) fail("lacks " + name.dump());
      } else if (key == "properties") {
        if (!v.is_object()) continue;
        for (const auto& [name, sub] : rule.items())
          if (v.contains(name)) Check(sub, v.at(name), at + "/" + name, errors);
      } else if (key == "additionalProperties") {
        if (!v.is_object()) continue;
        const auto& known = schema.value("properties", nlohmann::json::object());
        for (const auto& [name, value] : v.items()) {
          if (known.contains(name)) continue;
          if (rule.is_boolean() && !rule.get<bool>()) fail("has unknown key '" + name + "'");
          if (rule.is_object()) Check(rule, value, at + "/" + name, errors);
        }
      } else if (key == "items") {
        for (size_t i = 0; v.is_array() && i < v.size(); ++i)
          Check(rule, v[i], at + "/" + std::to_string(i), errors);
      } else if (key == "minItems" || key == "maxItems") {
        if (!v.is_array()) continue;
        bool min = key == "minItems";
        if (min ? v.size() < rule.get<size_t>() : v.size() > rule.get<size_t>())
          fail(key + " " + rule.dump());
      } else if (key == "maxProperties") {
        if (v.is_object() && v.size() > rule.get<size_t>()) fail(key + " " + rule.dump());
      } else if (key == "minimum" || key == "maximum") {
        if (!v.is_number()) continue;
        bool min = key == "minimum";
        if (min ? v.get<double>() < rule.get<double>() : v.get<double>() > rule.get<double>())
          fail(key + " " + rule.dump());
      } else if (key == "oneOf" || key == "anyOf") {
        size_t matched = 0;
        for (const auto& sub : rule) matched += Valid(sub, v);
        if (key == "oneOf" ? matched != 1 : matched == 0) fail(key + " matched " + std::to_string(matched));
      } else if (key == "if") {
        const char* branch = Valid(rule, v) ? "then" : "else";
        if (schema.contains(branch)) Check(schema.at(branch), v, at, errors);
      } else {
        fail("schema keyword '" + key + "' is not supported by the test validator");
      }
    }
  }

  nlohmann::json root_;
};

}  // namespace oomlens

#endif  // OOMLENS_TESTS_CLI_JSON_SCHEMA_H_
