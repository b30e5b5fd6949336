//! The official Ruby SDK, after its README's three ways to define a tool.

use super::*;

const RUBY_PRESETS: &str = r#"READ_ONLY = { read_only_hint: true, destructive_hint: false }.freeze
"#;

const RUBY_HINTS: &str = r#"module Hints
  CLOSED = { :open_world_hint => false }
end
"#;

const RUBY_TOOLS: &str = r#"require "mcp"
require_relative "presets"
require_relative "../config/hints.rb"

module Tools
  class WeatherTool < MCP::Tool
    tool_name "get_weather"
    description "Current weather"
    annotations(
      read_only_hint: true,
      destructive_hint: false,
      idempotent_hint: true,
      open_world_hint: true,
      title: "Weather"
    )
    def self.call(location:, server_context:)
      annotations(read_only_hint: false)
    end
  end

  class EchoTool < ::MCP::Tool
    annotations read_only_hint: true
  end

  class PresetTool < MCP::Tool
    tool_name "preset"
    annotations(**READ_ONLY, **Hints::CLOSED)
  end

  class PlainTool < MCP::Tool
    tool_name 'plain'
  end
end

# class Commented < MCP::Tool; end
DEFINED = MCP::Tool.define(name: "defined", annotations: { destructive_hint: true, idempotent_hint: nil }) do |args|
  MCP::Tool::Response.new([])
end
server = MCP::Server.new(name: "demo", tools: [Tools::WeatherTool])
server.define_tool(name: "on_server", annotations: READ_ONLY) { |args| args }
server.define_tool(name: "tool_#{n}") { |args| args }
"#;

/// A `Tool` that is not the SDK's, and another gem's.
const RUBY_LOOKALIKES: &str = r#"class Tool; end
class Hammer < Tool
  tool_name "hammer"
  annotations(read_only_hint: true)
end
class Wrench < FastMcp::Tool
  tool_name "wrench"
  annotations(read_only_hint: true)
end
Other::Tool.define(name: "nope", annotations: { read_only_hint: true })
"#;

#[test]
fn ruby_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("lib/presets.rb", RUBY_PRESETS.as_bytes()),
        ("config/hints.rb", RUBY_HINTS.as_bytes()),
        ("lib/tools.rb", RUBY_TOOLS.as_bytes()),
        ("lib/other.rb", RUBY_LOOKALIKES.as_bytes()),
        ("vendor/generated.rb", &big),
    ]);
    assert_rows(
        &found,
        &[
            "lib/tools.rb:6 get_weather tftt",
            "lib/tools.rb:21 <dynamic> t---",
            "lib/tools.rb:25 preset tf-f",
            "lib/tools.rb:30 plain ----",
            "lib/tools.rb:36 defined -t--",
            "lib/tools.rb:40 on_server tf--",
            "lib/tools.rb:41 <dynamic> ----",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Ruby));
}

#[test]
fn a_ruby_preset_file_is_parsed_only_when_required() {
    let mut tools = TreeTools::new();
    tools.add_file(b"lib/presets.rb", RUBY_PRESETS.as_bytes());
    tools.add_file(b"lib/unused.rb", RUBY_PRESETS.as_bytes());
    tools.add_file(b"lib/tools.rb", RUBY_TOOLS.as_bytes());
    assert_eq!(tools.files.len(), 1, "only the registering file at once");
    tools.resolve();
    let parsed: Vec<&[u8]> = tools.files.iter().map(|f| f.path.as_slice()).collect();
    assert_eq!(parsed, [&b"lib/presets.rb"[..], b"lib/tools.rb"]);
}

#[test]
fn every_ruby_sdk_is_recognised_by_its_spelling() {
    for form in [
        "class X < MCP::Tool\nend",
        "MCP::Tool.define(name: 'x') {}",
        "require \"mcp\"\nserver.define_tool(name: 'x') {}",
    ] {
        assert!(Lang::Ruby.uses_sdk(form.as_bytes()), "{form}");
    }
    assert!(!Lang::Ruby.uses_sdk(b"class Tool < ApplicationRecord\nend"));
}
