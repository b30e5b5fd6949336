//! The official PHP SDK and laravel/mcp, after their documented examples.

use super::*;

const PHP_ATTRIBUTES: &str = r#"<?php

namespace App\Tools;

use Mcp\Capability\Attribute\McpTool;
use Mcp\Schema\ToolAnnotations;

const READ_ONLY = new ToolAnnotations(readOnlyHint: true, openWorldHint: false);

class Calculator
{
    const DELETE = 'delete_all';

    // #[McpTool(name: 'commented', annotations: new ToolAnnotations(readOnlyHint: true))]
    #[McpTool(name: 'add', annotations: new ToolAnnotations(readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))]
    public function add(int $a, int $b): int { return $a + $b; }

    #[McpTool(name: 'search', annotations: new ToolAnnotations(title: 'Search', openWorldHint: true))]
    public function search(string $q): array { return []; }

    #[McpTool]
    public function plainMethod(): string { return ''; }

    #[McpTool(annotations: READ_ONLY)]
    public function preset(): void {}

    #[McpTool(self::DELETE, 'Deletes everything', new ToolAnnotations(null, false, true))]
    public function deleteAll(): void {}
}

#[McpTool(name: null, annotations: ToolAnnotations::fromArray(['idempotentHint' => true]))]
class Invokable { public function __invoke(): void {} }
"#;

const PHP_BUILDER: &str = r#"<?php
use Mcp\Server;
use Mcp\Schema\ToolAnnotations;

$destructive = new ToolAnnotations(destructiveHint: true);
$server = Server::builder()
    ->setServerInfo('demo', '1.0.0')
    ->addTool([Calculator::class, 'add'], 'built', annotations: new ToolAnnotations(readOnlyHint: false, idempotentHint: true))
    ->addTool(fn (int $a) => $a, name: 'closure', annotations: $destructive)
    ->addTool([Calculator::class, 'derived'])
    ->build();
$tool = new \Mcp\Schema\Tool(name: 'explicit', title: null, inputSchema: ['type' => 'object'], description: null, annotations: new ToolAnnotations(openWorldHint: false));
"#;

const LARAVEL_TOOLS: &str = r#"<?php

namespace App\Mcp\Tools;

use Laravel\Mcp\Request;
use Laravel\Mcp\Response;
use Laravel\Mcp\Server\Tool;
use Laravel\Mcp\Server\Tools\Annotations\IsDestructive;
use Laravel\Mcp\Server\Tools\Annotations\IsIdempotent;
use Laravel\Mcp\Server\Tools\Annotations\IsOpenWorld;
use Laravel\Mcp\Server\Tools\Annotations\IsReadOnly;

#[IsReadOnly]
#[IsDestructive(false)]
#[IsIdempotent]
#[IsOpenWorld(value: true)]
class CurrentWeatherTool extends Tool
{
    protected string $name = 'current-weather';
    protected string $description = 'Fetches the current weather.';
    public function handle(Request $request): Response { return Response::text('Sunny'); }
}

#[IsIdempotent]
class DerivedNameTool extends Tool {}

class PlainTool extends \Laravel\Mcp\Server\Tool
{
    protected string $name = 'plain';
}
"#;

const LARAVEL_NAMED: &str = r#"<?php
namespace App\Mcp\Tools;
use Laravel\Mcp\Server\Attributes\Name;
use Laravel\Mcp\Server\Tool as McpTool;
use Laravel\Mcp\Server\Tools\Annotations\IsReadOnly;
#[Name('named'), IsReadOnly(false)]
final class NamedTool extends McpTool
{
    protected string $name = 'overridden';
}
"#;

/// Another package's `Tool` and `McpTool`, and `addTool` outside the SDK.
const PHP_LOOKALIKES: &str = r#"<?php
namespace App\Tools;
use Prism\Prism\Tool;
use Lier\McpTools\Attributes\McpTool;
use Laravel\Mcp\Server\Tools\Annotations\IsReadOnly;
#[IsReadOnly]
class WeatherTool extends Tool
{
    protected string $name = 'not_mcp';
}
class Controller
{
    #[McpTool('get-tasks')]
    public function index() {}
}
$t = new Tool(name: 'prism');
$registry->addTool($handler, name: 'other');
"#;

#[test]
fn php_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/Tools/Calculator.php", PHP_ATTRIBUTES.as_bytes()),
        ("bin/server.php", PHP_BUILDER.as_bytes()),
        (
            "app/Mcp/Tools/CurrentWeatherTool.php",
            LARAVEL_TOOLS.as_bytes(),
        ),
        ("app/Mcp/Tools/NamedTool.php", LARAVEL_NAMED.as_bytes()),
        ("app/Tools/Lookalike.php", PHP_LOOKALIKES.as_bytes()),
        ("vendor/generated.php", &big),
    ]);
    assert_rows(
        &found,
        &[
            "app/Mcp/Tools/CurrentWeatherTool.php:13 current-weather tftt",
            "app/Mcp/Tools/CurrentWeatherTool.php:24 derived-name-tool --t-",
            "app/Mcp/Tools/CurrentWeatherTool.php:27 plain ----",
            "app/Mcp/Tools/NamedTool.php:6 named f---",
            "bin/server.php:8 built f-t-",
            "bin/server.php:9 closure -t--",
            "bin/server.php:10 <dynamic> ----",
            "bin/server.php:12 explicit ---f",
            "src/Tools/Calculator.php:15 add tftf",
            "src/Tools/Calculator.php:18 search ---t",
            "src/Tools/Calculator.php:21 plainMethod ----",
            "src/Tools/Calculator.php:24 preset t--f",
            "src/Tools/Calculator.php:27 delete_all ft--",
            "src/Tools/Calculator.php:31 Invokable --t-",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    let laravel = found
        .tools
        .iter()
        .filter(|t| t.family == Family::Laravel)
        .count();
    assert_eq!(laravel, 4);
    assert!(found
        .tools
        .iter()
        .all(|t| (t.family == Family::Laravel) == t.path.starts_with(b"app/")));
}

#[test]
fn every_php_sdk_is_recognised_by_its_spelling() {
    for form in [
        "use Mcp\\Capability\\Attribute\\McpTool;",
        "$b = \\Mcp\\Server::builder();",
        "use Laravel\\Mcp\\Server\\Tool as Base;",
    ] {
        assert!(Lang::Php.uses_sdk(form.as_bytes()), "{form}");
    }
    assert!(!Lang::Php.uses_sdk(b"use Prism\\Prism\\Tool;"));
}
