//! The official Swift SDK, after its README and the servers that use it.

use super::*;

const SWIFT_TOOLS: &str = r#"import MCP
import Foundation

extension Tool.Annotations {
    static let readOnly = Tool.Annotations(readOnlyHint: true, openWorldHint: false)
}

let searchName = "search"

// Tool(name: "commented", description: nil, inputSchema: .object([:]))
let tools: [Tool] = [
    Tool(
        name: "weather",
        description: "Weather",
        inputSchema: .object(["type": .string("object")]),
        annotations: .init(title: "Weather", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true)
    ),
    Tool(name: searchName, description: nil, inputSchema: .object([:]), annotations: Tool.Annotations(openWorldHint: true)),
    Tool(name: "plain", description: "No hints", inputSchema: .object([:])),
    Tool(name: "preset", description: nil, inputSchema: .object([:]), annotations: .readOnly),
    MCP.Tool(name: "qualified", description: nil, inputSchema: .object([:]), annotations: nil),
    Tool(name: "tool_\(n)", description: nil, inputSchema: .object([:]), annotations: .init(destructiveHint: flag)),
]
let partial = Tool(name: "no_schema")
"#;

/// Another library's `Tool` with the same labels, in a file without `import MCP`.
const SWIFT_LOOKALIKES: &str = r#"import SwiftAnthropic

let a = Tool(name: "claude_tool", description: "d", inputSchema: schema)
let b = MessageParameter.Tool(name: "message_tool", description: "d", inputSchema: schema)
"#;

#[test]
fn swift_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("Sources/Server/Tools.swift", SWIFT_TOOLS.as_bytes()),
        ("Sources/Claude/Tools.swift", SWIFT_LOOKALIKES.as_bytes()),
        ("Sources/Generated.swift", &big),
    ]);
    assert_rows(
        &found,
        &[
            "Sources/Server/Tools.swift:12 weather tftt",
            "Sources/Server/Tools.swift:18 search ---t",
            "Sources/Server/Tools.swift:19 plain ----",
            "Sources/Server/Tools.swift:20 preset t--f",
            "Sources/Server/Tools.swift:21 qualified ----",
            "Sources/Server/Tools.swift:22 <dynamic> -?--",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Swift));
}

#[test]
fn new_extensions_are_wanted() {
    for yes in ["a.php", "lib/b.rb", "Sources/C.swift"] {
        assert!(TreeTools::wants(yes.as_bytes()), "{yes}");
    }
}
