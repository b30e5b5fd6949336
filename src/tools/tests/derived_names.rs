//! Names an SDK derives where the source gives none, on trees written the way real
//! servers write them: C# tool methods without `Name` (as opendata-mcp-lab's
//! `Tools/*Tools.cs`), laravel/mcp tool classes without `$name` (as laravel/boost's
//! `src/Mcp/Tools/`).

use super::*;

const BILLS_TOOLS: &str = r#"using Microsoft.Extensions.Logging;
using ModelContextProtocol.Server;
using System.ComponentModel;

namespace OpenData.Mcp.Server.Tools
{
    [McpServerToolType]
    public class BillsTools(IHttpClientFactory f, ILogger<BillsTools> logger) : BaseTools(f, logger)
    {
        [McpServerTool(ReadOnly = true, Idempotent = true, OpenWorld = false), Description("Recent bills")]
        public async Task<string> GetRecentlyUpdatedBillsAsync(int take = 10)
        {
            return await GetResult($"{Base}/Bills?take={take}");
        }

        [McpServerTool(ReadOnly = true), Description("Bill types")]
        public async Task<string> BillTypesAsync() => await GetResult("x");

        [McpServerTool(Destructive = false)]
        public string ExportCSVAsync() => "";

        [McpServerTool(Name = "given_name", ReadOnly = true)]
        public Task<string> Ignored() => Task.FromResult("");

        [McpServerTool(Name = Names.Computed)]
        public Task<string> Computed() => Task.FromResult("");
    }
}
"#;

#[test]
fn a_csharp_tool_method_without_a_name_is_named_as_the_sdk_names_it() {
    let found = find(&[(
        "OpenData.Mcp.Server/Tools/BillsTools.cs",
        BILLS_TOOLS.as_bytes(),
    )]);
    assert_rows(
        &found,
        &[
            "OpenData.Mcp.Server/Tools/BillsTools.cs:10 get_recently_updated_bills t-tf",
            "OpenData.Mcp.Server/Tools/BillsTools.cs:16 bill_types t---",
            "OpenData.Mcp.Server/Tools/BillsTools.cs:19 export_csv_async -f--",
            "OpenData.Mcp.Server/Tools/BillsTools.cs:22 given_name t---",
            "OpenData.Mcp.Server/Tools/BillsTools.cs:25 <dynamic> ----",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::CSharp));
}

const APPLICATION_INFO: &str = r#"<?php

declare(strict_types=1);

namespace Laravel\Boost\Mcp\Tools;

use Laravel\Mcp\Request;
use Laravel\Mcp\Response;
use Laravel\Mcp\Server\Tool;
use Laravel\Mcp\Server\Tools\Annotations\IsReadOnly;

#[IsReadOnly]
class GetAbsoluteUrl extends Tool
{
    protected string $description = 'Get the absolute URL for a given relative path.';

    public function handle(Request $request): Response
    {
        return Response::text(url($request->get('path', '/')));
    }
}
"#;

const TINKER: &str = r#"<?php
namespace Laravel\Boost\Mcp\Tools;
use Laravel\Mcp\Server\Tool;
class Tinker extends Tool
{
    protected string $name = '';
}
"#;

const COMPUTED: &str = r#"<?php
namespace App\Mcp\Tools;
use Laravel\Mcp\Server\Tool;
use Laravel\Mcp\Server\Tools\Annotations\IsDestructive;
#[IsDestructive]
class PurgeCache extends Tool
{
    public function name(): string
    {
        return config('app.prefix') . '-purge';
    }
}
"#;

#[test]
fn a_laravel_tool_class_without_a_name_is_named_as_laravel_mcp_names_it() {
    let found = find(&[
        (
            "src/Mcp/Tools/GetAbsoluteUrl.php",
            APPLICATION_INFO.as_bytes(),
        ),
        ("src/Mcp/Tools/Tinker.php", TINKER.as_bytes()),
        ("app/Mcp/Tools/PurgeCache.php", COMPUTED.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "app/Mcp/Tools/PurgeCache.php:5 <dynamic> -t--",
            "src/Mcp/Tools/GetAbsoluteUrl.php:12 get-absolute-url t---",
            "src/Mcp/Tools/Tinker.php:4 tinker ----",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::Laravel));
}
