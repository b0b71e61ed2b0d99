#include "appell/io/model_file.hpp"

#include "appell/io/model_reader.hpp"
#include "appell/model/input_file.hpp"

namespace appell::io {

ModelFormat detect_model_format(const std::string& text) {
  std::size_t i = model::byte_order_mark_size(text);
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
    ++i;
  return i < text.size() && text[i] == '<' ? ModelFormat::Urdf : ModelFormat::Yaml;
}

std::string read_model_text(const std::string& path) {
  return model::read_input_file(path, model::InputKind::Model);
}

ModelFile read_model(const std::string& path, const UrdfOptions& urdf) {
  const std::string text = read_model_text(path);
  ModelFile file;
  file.format = detect_model_format(text);
  if (file.format == ModelFormat::Yaml) {
    file.model = parse_model(text, path);
    return file;
  }
  UrdfModel translated = translate_urdf(text, path, urdf);
  file.model = build_model(translated);
  file.warnings = std::move(translated.warnings);
  return file;
}

}  // namespace appell::io
