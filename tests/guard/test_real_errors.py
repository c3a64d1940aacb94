"""Real error texts from agents, SDKs and servers: category accuracy, measured leave-one-source-out.

`data/real_errors.json` holds error texts harvested from the source code and issue trackers of
the agents, SDKs and model servers that produce them (each row keeps its repository, path or
issue, licence and provenance), plus successful outputs that only mention errors. Rows of split
`dev` were read while the wording families were written; rows of split `heldout` were harvested
afterwards and only scored. Every source is scored with the wordings written from that source
alone switched off (`Classifier(exclude_origins={source})`). `data/blind_errors.json` is a
separate split, harvested before a session's wordings were written and scored once at its end
(`data/FIRST_SCORINGS.md`, batch 11).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from toolmend.guard import Interceptor, classify_result
from toolmend.guard.classify import Classifier
from toolmend.guard.guidance import DEFAULT_MAX_BYTES
from toolmend.guard.patterns import PATTERNS, PATTERNS_BY_ID, Category

from .conftest import load_cases

#: The corpus, and the batches kept in files of their own (so that batches harvested in parallel
#: merge): the same columns, scored the same way. `command_errors.json` holds the program outputs
#: inside agents' command-result formats (batches 35 and 36), each with the call's arguments (its
#: shell command).
ROWS = (
    load_cases("real_errors.json")
    + load_cases("batch33_errors.json")
    + load_cases("batch34_errors.json")
    + load_cases("batch39_errors.json")
    + load_cases("batch41_errors.json")
    + load_cases("batch44_errors.json")
    + load_cases("batch45_errors.json")
    + load_cases("batch48_errors.json")
    + load_cases("batch50_errors.json")
    + load_cases("batch53_errors.json")
    + load_cases("batch55_errors.json")
    + load_cases("batch43_errors.json")
    + load_cases("command_errors.json")
)
#: The blind split: harvested before the session's wordings were written, scored once at its end.
BLIND = load_cases("blind_errors.json")
ERRORS = [r for r in ROWS if r["kind"] == "error"]
SUCCESSES = [r for r in ROWS if r["kind"] == "success"]

#: The blind split's one honest scoring (guard4, at 826bed7, after every wording of that session
#: was written): right, total. A floor for later changes, not the goal, and not to be re-scored
#: as blind once wordings have been written from its misses.
BLIND_FIRST_SCORING = (102, 146)
#: The second blind split (`blind2_errors.json`, batch 22): harvested by an engineer who never
#: read the classifier while guard5 wrote its wordings, scored once at 76864ed (the end of those
#: wordings): right, total. Its first scoring, kept as a floor.
BLIND2_FIRST_SCORING = (245, 298)
BLIND2 = load_cases("blind2_errors.json")
#: The third blind split (`blind3_errors.json`, batch 23): harvested by an engineer who never
#: read the classifier while guard7 wrote batch 24's wordings, scored once at f805314: right,
#: total (ten of its texts share a template with batch-24 rows: 185/245 without them).
BLIND3_FIRST_SCORING = (195, 255)
BLIND3 = load_cases("blind3_errors.json")
#: The fourth blind split (`blind4_errors.json`, batch 26): harvested by harvest7, who never read
#: the classifier, while guard9 wrote batch 25's wordings; scored once by the integrator at main
#: d09222a (after batch 25's families) with the plain `Classifier()`: right, total.
BLIND4_FIRST_SCORING = (155, 251)
BLIND4 = load_cases("blind4_errors.json")
#: The fifth blind split (`blind5_errors.json`, batch 28): harvested by harvest8, who never read
#: the classifier, from the issue's agents, SDKs and MCP servers and from programs run here, while
#: guard12 and guard13 widened servers' and other agents' wordings; scored once by the integrator
#: at main d8879be with the plain `Classifier()` (the same at guard13's 7eb4720): right, total.
BLIND5_FIRST_SCORING = (250, 291)
BLIND5 = load_cases("blind5_errors.json")
#: The sixth blind split (`blind6_errors.json`, batch 37): harvested by harvest9, who never read
#: the classifier, from 27 sources named in advance that no earlier harvest used (editor agents,
#: MCP servers, frameworks, and programs run here inside their result formats), while guard14 and
#: guard15 widened other agents' and programs' wordings; scored once by the integrator at the
#: session's last merge (78a7d05) with the plain `Classifier()`: right, total (211 at 6897c7b,
#: before that session's guard work).
BLIND6_FIRST_SCORING = (210, 296)
BLIND6 = load_cases("blind6_errors.json")
#: NOT A BLIND FIGURE: the sixth split after its misses were read (guard16): the meaning classes
#: (`meanings`) read the cause what no family recognised states last (`FIRST_SCORINGS.md`,
#: "Blind6 after reading (guard16)"). A floor for regressions only.
BLIND6_AFTER_READING = 254
#: The seventh blind split (`blind7_errors.json`, batch 40): harvested by harvest10, who never read
#: the classifier, from the issue's own agents, SDKs, MCP servers and servers (the half guard17 did
#: not read) and from programs run here inside those agents' result formats, while guard16 and
#: guard17 widened the wordings; scored once by the integrator at the merge of their work
#: (decc897) with the plain `Classifier()`: right, total (240 at 7f999ea, before that
#: session's guard work). Its one false positive then (a logged, handled Python exception) was
#: mended after that scoring.
BLIND7_FIRST_SCORING = (242, 271)
BLIND7 = load_cases("blind7_errors.json")
#: The eighth blind split (`blind8_errors.json`, batch 42): harvested by harvest11, who never read
#: the classifier, from the other half of the issue's sources (Roo Code, Cline, Continue, Claude
#: Code, Codex, Qwen Code, goose, the MCP TypeScript SDK and filesystem server, LangGraph, the
#: OpenAI Agents SDK, Ollama, llama.cpp's server) and programs blind7 did not use, run here inside
#: those agents' result formats; scored once by the integrator with the plain `Classifier()` at
#: the merge of the session's work (3b46a8a, before guard19's batch 43, and the same at b4198f6,
#: after it): right, total (234 at 50c7f8f, before that session's work).
BLIND8_FIRST_SCORING = (235, 268)
BLIND8 = load_cases("blind8_errors.json")
#: The ninth blind split (`blind9_errors.json`, batch 46): harvested by harvest13, who never read
#: the classifier, from programs run here (gdb, valgrind, strace, ninja, ImageMagick, GnuPG, ...)
#: inside agents' shell-result forms (`BLIND9.md`; cut short at 115 rows); scored once by the
#: integrator with the plain `Classifier()` at b9a3d04, before any reading of it: right, total.
BLIND9_FIRST_SCORING = (66, 90)
BLIND9 = load_cases("blind9_errors.json")
#: The tenth blind split (`blind10_errors.json`, batch 47): harvested by harvest14, who never read
#: the classifier, from agent frameworks', coding agents', SDKs' and MCP servers' own error texts
#: (CAMEL, OpenHands, agno, crewAI, AutoGen, Strands, the Vercel AI SDK, Google ADK, ...) and a
#: few programs run here (`BLIND10.md`); scored once by the integrator with the plain
#: `Classifier()` at the merge of the session's work (9524a99, guard23 included): right, total
#: (the same 137 at 0c35ee2, before that session's guard work). Its one false positive then (a
#: build record whose `status` is "failed", autogen/blind10/010) was mended after that scoring.
BLIND10_FIRST_SCORING = (137, 183)
BLIND10 = load_cases("blind10_errors.json")
#: The eleventh blind split (`blind11_errors.json`, batch 49): harvested by harvest15, who never
#: read the classifier, from agents', SDKs' and MCP servers' own error texts no earlier split used
#: (fastmcp, Playwright's, Desktop Commander's, Chrome DevTools' and GitHub's MCP servers,
#: browser-use, AgentScope, Semantic Kernel .NET, LlamaIndex, Letta, AG2, ...; `BLIND11.md`);
#: scored once by the integrator with the plain `Classifier()` at the merge of the session's
#: work (a06b964, guard24's blind10 families included): right, total (the same 74 at de8851b,
#: before guard24).
BLIND11_FIRST_SCORING = (74, 124)
BLIND11 = load_cases("blind11_errors.json")
#: Blind11 scored after a mechanism built without reading it (guard25, at f76daa8): the category
#: cues read in a tool's own message, machine identifiers and codes read as words, envelopes read
#: by key names, sibling blocks and sections read first one first, a status or coarse code refined
#: by the cue its message states (`FIRST_SCORINGS.md`, "Blind11 scored by a mechanism built
#: without reading it (guard25)"): right, total. Its misses were not read before this figure; a
#: floor for regressions, not a first scoring (four aggregate scorings were taken on the way).
BLIND11_UNREAD_MECHANISM = (83, 124)
#: NOT A BLIND FIGURE: the eleventh split after its misses were read (guard25): 6 labels brought
#: to the corpus's conventions (each row's note cites the rows; 87 with the relabels alone) and the
#: families its other misses showed, written with batch 50's siblings from other sources
#: (`FIRST_SCORINGS.md`, "Blind11 after reading (guard25)"). A floor for regressions only.
BLIND11_AFTER_READING = 112
#: The twelfth blind split (`blind12_errors.json`, batch 51): harvested by harvest16, who never
#: read the classifier, from agents', agent frameworks' and MCP servers' own error texts no earlier
#: split used (gptme, Agent Zero, Amazon Q CLI, Langroid, Griptape, the Kubernetes, Atlassian,
#: Sentry, Supabase, Exa, Tavily, Firecrawl, Notion, Brave and context7 MCP servers, ...;
#: `BLIND12.md`); scored once by the integrator with the plain `Classifier()` at the merge of the
#: session's work (3d7bf66, guard25's mechanism included): right, total (85 at 38d010a, before it).
BLIND12_FIRST_SCORING = (94, 148)
BLIND12 = load_cases("blind12_errors.json")
#: NOT A BLIND FIGURE: the twelfth split after its misses were read (guard26): 6 labels brought to
#: the corpus's conventions (each row's note cites the rows; 98 with the relabels alone) and the
#: families its other misses showed (125 after them), written with batch 53's siblings from other
#: sources (`FIRST_SCORINGS.md`, "Blind12 after reading (guard26)"). A floor for regressions only.
BLIND12_AFTER_READING = 125
#: The thirteenth blind split (`blind13_errors.json`, batch 52): harvested by harvest17, who never
#: read the classifier, from issue 14's own sources (Claude Code, Cline, Codex, the Agents SDK,
#: smolagents, pydantic-ai, Continue, Kilo Code, Aider, gemini-cli, llama.cpp, the AI SDK, VS
#: Code, the MCP servers and SDKs, Ollama, ...), texts no earlier row held, read in their newest
#: code or quoted in Claude Code's tracker (`BLIND13.md`); scored once by the integrator with the
#: plain `Classifier()` at the merge of the session's work (51a1dde): right, total (65 at
#: 38d010a). Two of its 44 successes were taken for failures there (and at 38d010a): one mended
#: after the scoring (a record named by its `build_id`), the other by guard27 (a status in the
#: tool's typed output, MCP's `structuredContent`, is data: `BLIND13_FALSE_POSITIVES`).
BLIND13_FIRST_SCORING = (69, 120)
BLIND13 = load_cases("blind13_errors.json")
#: None left: mcp-typescript-sdk/blind13/003, a status lookup's record with no id of its own
#: (`{"pipeline": "release", "status": "failed", "failedJob": "e2e"}`), was read as the tool's
#: failure until guard27 read the result's `structuredContent` (the tool's typed output, with no
#: `isError`) as data (`results._carries_typed_output`).
BLIND13_FALSE_POSITIVES: list[str] = []
#: NOT A BLIND FIGURE: the thirteenth split after its misses were read (guard27): 3 labels brought
#: to the corpus's conventions (each row's note cites the rows; 72 with the relabels alone) and the
#: families its other misses showed (a patch's own grammar, a fetch a policy refused, a server's
#: check of its tool's output, a scope named as this session's; 81 after them), written with
#: batch 55's siblings from other sources (`FIRST_SCORINGS.md`, "Blind13 after reading
#: (guard27)"). A floor for regressions only.
BLIND13_AFTER_READING = 81
#: The fourteenth blind split (`blind14_errors.json`, batch 54): harvested by harvest18, who never
#: read the classifier, from what users quote in the issue trackers of issue 14's agents (Gemini
#: CLI, Claude Code, OpenCode, Codex, smolagents, goose, LM Studio, Cline, Roo Code, the AI SDK,
#: ...; every error quoted from a thread, `BLIND14.md`); scored once by the integrator with the
#: plain `Classifier()` at the merge of the session's work (d672edb, guard27 included): right,
#: total (34 at 38d010a).
BLIND14_FIRST_SCORING = (37, 65)
BLIND14 = load_cases("blind14_errors.json")
#: NOT A BLIND FIGURE: the eighth and ninth splits after their misses were read (guard23): labels
#: brought to the corpus's conventions for texts it already holds (16 of blind8, 9 of blind9; each
#: row's note cites the rows; the first scorings above count them with their first labels) and
#: the families their other misses showed, written from batch 45 (`FIRST_SCORINGS.md`, "Blind8
#: and blind9 after reading (guard23)"). Floors for regressions only.
BLIND8_AFTER_READING = 263
BLIND9_AFTER_READING = 89
#: NOT A BLIND FIGURE: the tenth split after its misses were read (guard24): labels brought to the
#: corpus's conventions for texts it already holds (each row's note cites the rows; the first
#: scoring above counts them with their first labels) and the families its other misses showed,
#: written from batch 48 (`FIRST_SCORINGS.md`, "Blind10 after reading (guard24)"). A floor for
#: regressions only. 170 since guard25 (171 before): google-adk/blind10/003's `error_details`
#: ("404 GET https://bigquery...: Not found: Table ...") is now read by its key's name, and its
#: 404 decides as the same message does bare (NETWORK_ERROR, the corpus's reading of 15 other
#: 404s); it was read as a missing table only through the raw JSON, which an envelope whose
#: values were read no longer is.
BLIND10_AFTER_READING = 170
#: NOT A BLIND FIGURE: the seventh split after its misses were read (guard18): 17 labels brought to
#: the corpus's conventions for texts it already holds (each row's note cites the rows; the first
#: scoring above counts them with their first labels) and the families its other misses showed,
#: written from batch 41 (`FIRST_SCORINGS.md`, "Blind7 after reading (guard18)"). A floor for
#: regressions only.
BLIND7_AFTER_READING = 269
#: NOT A BLIND FIGURE: the fifth split after its misses were read (guard14): 23 labels brought to
#: the corpus's conventions for texts it already holds (each row's note says which rows; the
#: first scoring above counts them with their first labels) and the families its other misses
#: showed widened (`FIRST_SCORINGS.md`, "Blind5 after reading"). A floor for regressions only.
BLIND5_AFTER_READING = 289
#: NOT A BLIND FIGURE: the fourth split after its misses were read and the families they showed
#: were widened (guard11: 166; guard13's agent families, batches 28 and 29 and the split's own
#: agent misses: 190; guard12's server and API readers, batches 31 and 32: 195; both: 218;
#: `FIRST_SCORINGS.md`). A floor for regressions only.
BLIND4_AFTER_READING = 218
#: NOT A BLIND FIGURE: the third split after its misses were read and the families they showed
#: were widened (guard8: 215; guard13's families, batch 29: 216; `FIRST_SCORINGS.md`, batch 23).
#: A floor for regressions only.
BLIND3_AFTER_READING = 216
#: NOT A BLIND FIGURE: the second split after its misses were read and the families they showed
#: were widened (guard6; `FIRST_SCORINGS.md`, batch 22). A floor for regressions only.
BLIND2_AFTER_READING = 286
#: The same split after its misses were read and their families widened (guard4: 135; guard5's
#: families: 141): a floor for regressions, not a blind figure.
BLIND_AFTER_READING = 141

#: Batch 24 (guard7): 114 errors from sources the corpus had none or almost none of (OpenHands,
#: the GitHub MCP server, CrewAI, AutoGen, LiteLLM, cargo, docker, ruff, mypy, tsc, eslint),
#: first scored leave-one-source-out at 6ffbfbf before any wording was written for them: right,
#: total. Its misses were then read and moved to `dev`; a floor, not a blind figure.
BATCH24_FIRST_SCORING = (72, 114)
#: Batch 25 (guard9): 163 errors from sources disjoint from the fourth blind split's (program
#: outputs captured here, agent and SDK code paths no earlier row came from), first scored
#: leave-one-source-out at b350793 before any wording was written for them: right, total.
BATCH25_FIRST_SCORING = (117, 163)
#: Batch 27 (guard10): 101 errors from agents the corpus had none of (crush, SWE-agent, Open
#: Interpreter, agno, Google ADK), first scored leave-one-source-out at d09222a before any
#: wording was written for them: right, total (72 as first labelled; 75 after five labels were
#: brought to the corpus's conventions, `FIRST_SCORINGS.md`, batch 27).
BATCH27_FIRST_SCORING = (75, 101)
#: Batch 28 (guard13): 109 errors of the agents whose own wordings missed most in the fourth
#: blind split (VS Code, Kilo Code, Qwen Code, the Vercel AI SDK) and of Haystack and DSPy, first
#: scored at 9c167ab with the plain classifier before any wording was written for them: right,
#: total (74 as first labelled; 76 after three labels were brought to the corpus's conventions).
BATCH28_FIRST_SCORING = (76, 109)
#: Batch 29 (guard13): 26 errors of Mastra, Semantic Kernel, LlamaIndex, more Copilot Chat tools,
#: Cursor and Windsurf, harvested after batch 28's families and first scored at bd4de45 with the
#: plain classifier before any wording was written for them: right, total.
BATCH29_FIRST_SCORING = (17, 26)
#: Batch 30 (guard13): 22 errors of Zoo Code's newer tools and Letta's core memory tools,
#: harvested after batch 29's families and first scored at 777c00b with the plain classifier
#: before any wording was written for them: right, total.
BATCH30_FIRST_SCORING = (14, 22)
#: Batch 31 (guard12, harvested as its batch 28): 90 error bodies of model servers and APIs (vLLM, SGLang, llama.cpp, TGI,
#: Ollama, LM Studio, LiteLLM, OpenRouter and the OpenAI, Anthropic, Gemini, Mistral, Groq and
#: Fireworks APIs), first scored leave-one-source-out at 9c167ab before any wording was written
#: for them: right, total (36 as first labelled; 37 after one label was brought to the corpus's
#: conventions, `FIRST_SCORINGS.md`, batch 31).
BATCH31_FIRST_SCORING = (37, 90)
#: Batch 32 (guard12, harvested as its batch 29): 35 more refusals of the same servers and APIs (other messages of the same
#: code paths, and the clients' exception lines), first scored leave-one-source-out at 8457741,
#: after batch 31's readers and wordings and before any wording for it: right, total.
BATCH32_FIRST_SCORING = (30, 35)

#: Batch 33 (guard14, `batch33_errors.json`): 77 errors of the MCP SDKs for Go (and jsonschema-go),
#: Rust, C#, Kotlin and Java, mark3labs/mcp-go, the OpenAI Agents SDK for JavaScript, DSPy and
#: Haystack, first scored leave-one-source-out at f5dd133 before any wording was written for them:
#: right, total.
BATCH33_FIRST_SCORING = (52, 77)

#: Batch 34 (guard14, `batch34_errors.json`): 42 errors of LangChain.js, CrewAI, Agno and Crush,
#: harvested after batch 33's families and first scored leave-one-source-out at 2f4ba88 before
#: any wording was written for them: right, total (23 as first labelled; 25 after two labels were
#: brought to the corpus's conventions).
BATCH34_FIRST_SCORING = (25, 42)
#: Batch 35 (guard15): 104 outputs of programs run here (test runners, type checkers, linters,
#: JVM, Rust, package managers, databases, kubectl, terraform, git, ssh, archives, text tools,
#: Python libraries against closed ports) inside eleven agents' command-result formats, first
#: scored leave-one-source-out at 6897c7b before any wording was written for them: right, total.
BATCH35_FIRST_SCORING = (98, 104)
#: Batch 36 (guard15): 96 more program outputs (other linters, test runners' other failures,
#: archives, databases, package managers offline, silent programs that state only a status),
#: harvested after batch 35's families and first scored at 5bc753e before any wording for it:
#: right, total (87 as first labelled; 89 after four labels were brought to the corpus's
#: conventions, `FIRST_SCORINGS.md`, batch 36).
BATCH36_FIRST_SCORING = (89, 96)

#: Batch 39 (guard17, `batch39_errors.json`): 80 errors of the newest Roo Code, Cline, Continue,
#: Codex CLI, Qwen Code, MCP TypeScript SDK and filesystem server, LangGraph, OpenAI Agents SDK,
#: Ollama and LM Studio wordings, first scored leave-one-source-out at 7f999ea before any wording
#: was written for them: right, total (57 as first labelled; 60 after five labels were brought to
#: the corpus's conventions, `FIRST_SCORINGS.md`, batch 39).
BATCH39_FIRST_SCORING = (60, 80)

#: Batch 41 (guard18, `batch41_errors.json`): 33 errors of the families the seventh blind split's
#: misses showed (a command killed by a signal and VS Code's missing exit code in Roo Code's and
#: Kilo Code's results, JSON-RPC errors of the MCP SDKs, values that name nothing there, compilers
#: that cannot find a name, registries that want credentials, a recipe's missing script, timeout's
#: kill, aider's edit listing, pydantic-ai's validation feedback), first scored
#: leave-one-source-out at 486b552 before any wording was written for them: right, total.
BATCH41_FIRST_SCORING = (7, 33)
#: Batch 43 (guard19, `batch43_errors.json`): 130 outputs of programs few rows held (javac and
#: java, Maven, perl, cmake, g++, rustc and Rust programs, tclsh, openssl, ssh, gpg, the
#: compressors, sed, awk, find and xargs, patch, diff, sqlite3, wget, psql and the docker client
#: without a server) inside six agents' command-result formats, first scored leave-one-source-out
#: at 50c7f8f before any wording was written for them: right, total (122 as first labelled; 123
#: after one label was brought to the corpus's conventions, `FIRST_SCORINGS.md`, batch 43).
BATCH43_FIRST_SCORING = (123, 130)

#: Batch 45 (guard23, `batch45_errors.json`): 53 errors and 12 successes, siblings of the families
#: the eighth and ninth blind splits' misses showed (a debugged or sanitized program that crashed,
#: gdb's refusals, valgrind's reports, bc's runtime and parse errors, binary formats, ImageMagick's
#: error locus, signatures that do not verify, SIGALRM, out of memory, a program's unknown
#: subcommand or type, a server socket that is not there, a timeout's kill through cmake, client
#: libraries' authentication, connection and timeout errors) and outputs with warnings, captured
#: here; first scored leave-one-source-out at c89abd3 before any wording was written for them:
#: right, total.
BATCH45_FIRST_SCORING = (38, 53)
#: Batch 48 (guard24): siblings of the tenth blind split's missed families, read in the same
#: modules of the frameworks that produced them (OpenHands' runtime, agno's function parsing and
#: CodingTools, crush's LSP and question tools, LM Studio's argument checks, Strands around
#: botocore's ClientError); first scored leave-one-source-out at 52eebb5 before any wording was
#: written for them: right, total.
BATCH48_FIRST_SCORING = (15, 29)
#: Batch 50 (guard25, `batch50_errors.json`): 15 errors and 3 successes from 10 sources no split
#: used, siblings of the families blind11's misses showed (pydantic's missing field, tools that are
#: not there, arguments serde could not parse, an MCP server's error payloads by key names, browser
#: elements the call names that are not there, a refused connection in Windows' words), read after
#: blind11's misses; first scored leave-one-source-out at a91083a before any wording was written
#: for them: right, total.
BATCH50_FIRST_SCORING = (9, 15)
#: Batch 53 (guard26, `batch53_errors.json`): 12 errors and 3 successes from 10 sources no split
#: used, siblings of the families blind12's misses showed (a call a hook or a rule blocked, an
#: expired or refused login, a plan's usage spent, a read over its size or outside its range, a
#: reply in the wrong form, a connection that could not be made), read after blind12's misses;
#: first scored leave-one-source-out at c15a8b5 before any wording was written for them: right,
#: total.
BATCH53_FIRST_SCORING = (6, 12)
#: Batch 55 (guard27, `batch55_errors.json`): 17 errors and 3 successes from 6 sources no blind13
#: miss it answers came from, siblings of blind13's misses: a patch's own grammar (Zoo Code's
#: apply_patch parser, Codex CLI's TypeScript apply_patch, fast-agent's port of codex's parser;
#: of aider/blind13/001-002, openai-agents/blind13/001, 012), a fetch a policy refused (co-cli's
#: and OpenCrust's web_fetch; of pydantic-ai/blind13/001-003) and a server's check of its tool's
#: output (the MCP Python SDK's; of mcp-typescript-sdk/blind13/001); chosen after blind13's misses
#: were read, and first scored leave-one-source-out at 60d8951, before any mechanism of guard27:
#: right, total.
BATCH55_FIRST_SCORING = (7, 17)

#: The goals of the measurement: overall, and for each source with at least `MIN_TEXTS`.
OVERALL_GOAL = 0.90
PER_SOURCE_GOAL = 0.75
MIN_TEXTS = 10


def leave_one_source_out(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """source -> (right, total), each source scored without the wordings only it motivated."""
    scores: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    classifiers: dict[str, Classifier] = {}
    for row in rows:
        source = row["source"]
        if source not in classifiers:
            classifiers[source] = Classifier(exclude_origins={source})
        classifier = classifiers[source]
        got = classifier.classify(row["text"], metadata=_call_metadata(row))
        scores[source][1] += 1
        scores[source][0] += int(got.category == row["category"])
    return {source: (right, total) for source, (right, total) in scores.items()}


def _call_metadata(row: dict[str, Any]) -> dict[str, Any] | None:
    """What the guard knows of the call beside its result: the shell command, where the row
    keeps the call's arguments (`command_errors.json`); None for the rows that keep none."""
    arguments = row.get("arguments")
    command = arguments.get("command") if isinstance(arguments, dict) else None
    return {"command": command} if isinstance(command, str) else None


def report(title: str, scores: dict[str, tuple[int, int]]) -> str:
    right = sum(r for r, _ in scores.values())
    total = sum(t for _, t in scores.values())
    lines = [f"{title}: {right}/{total} = {right / total:.1%}"]
    lines += [f"  {s:20} {r:3}/{t:<3} {r / t:.0%}" for s, (r, t) in sorted(scores.items())]
    return "\n".join(lines)


def test_the_corpus_has_400_real_errors_from_15_sources_and_100_successes() -> None:
    assert len(ERRORS) >= 400
    assert len({r["source"] for r in ERRORS}) >= 15
    assert len(SUCCESSES) >= 100


def test_every_row_names_its_repository_place_licence_and_split() -> None:
    for row in ROWS + BLIND:
        assert row["repo"].count("/") == 1, row["id"]
        assert row["where"] and row["license"], row["id"]
        assert row["split"] == "blind" if row in BLIND else row["split"] in ("dev", "heldout")
        # every text was harvested (read in source, quoted in an issue, or captured here);
        # none is written from memory
        assert row["provenance"] in ("source", "issue", "constructed"), row["id"]
        if row["kind"] == "error":
            assert row["category"] in Category.__members__, row["id"]
        else:
            assert row["tool"], row["id"]


def test_every_category_a_real_error_needs_has_a_pattern_with_guidance() -> None:
    needed = {r["category"] for r in ERRORS}
    for category in needed:
        patterns = [p for p in PATTERNS if p.category == category]
        assert patterns, category
        assert all(p.what and p.why and p.next for p in patterns), category


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_leave_one_source_out_accuracy_meets_the_goals(split: str) -> None:
    scores = leave_one_source_out([r for r in ERRORS if r["split"] == split])
    print("\n" + report(f"leave-one-source-out, {split}", scores))
    right = sum(r for r, _ in scores.values())
    total = sum(t for _, t in scores.values())
    assert right / total >= OVERALL_GOAL
    for source, (r, t) in scores.items():
        if t >= MIN_TEXTS:
            assert r / t >= PER_SOURCE_GOAL, source


@pytest.mark.parametrize(
    ("name", "rows", "first_scoring", "after_reading", "min_successes"),
    [
        ("blind", BLIND, BLIND_FIRST_SCORING, BLIND_AFTER_READING, 30),
        ("blind2", BLIND2, BLIND2_FIRST_SCORING, BLIND2_AFTER_READING, 60),
        ("blind3", BLIND3, BLIND3_FIRST_SCORING, BLIND3_AFTER_READING, 60),
        ("blind4", BLIND4, BLIND4_FIRST_SCORING, BLIND4_AFTER_READING, 50),
        ("blind5", BLIND5, BLIND5_FIRST_SCORING, BLIND5_AFTER_READING, 60),
        ("blind6", BLIND6, BLIND6_FIRST_SCORING, BLIND6_AFTER_READING, 60),
        ("blind7", BLIND7, BLIND7_FIRST_SCORING, BLIND7_AFTER_READING, 60),
        ("blind8", BLIND8, BLIND8_FIRST_SCORING, BLIND8_AFTER_READING, 70),
        ("blind9", BLIND9, BLIND9_FIRST_SCORING, BLIND9_AFTER_READING, 25),
        ("blind10", BLIND10, BLIND10_FIRST_SCORING, BLIND10_AFTER_READING, 65),
        (
            "blind11",
            BLIND11,
            BLIND11_FIRST_SCORING,
            max(BLIND11_UNREAD_MECHANISM[0], BLIND11_AFTER_READING),
            35,
        ),
        ("blind12", BLIND12, BLIND12_FIRST_SCORING, BLIND12_AFTER_READING, 40),
        ("blind14", BLIND14, BLIND14_FIRST_SCORING, BLIND14_FIRST_SCORING[0], 35),
    ],
)
def test_a_blind_split_keeps_its_first_scoring_and_takes_no_success_for_a_failure(
    name: str,
    rows: list[dict[str, Any]],
    first_scoring: tuple[int, int],
    after_reading: int,
    min_successes: int,
) -> None:
    errors = [r for r in rows if r["kind"] == "error"]
    classifier = Classifier()
    right = sum(classifier.classify(r["text"]).category == r["category"] for r in errors)
    print(f"\n{name}: {right}/{len(errors)} = {right / len(errors):.1%}")
    assert len(errors) == first_scoring[1]
    assert right >= max(first_scoring[0], after_reading)
    successes = [r for r in rows if r["kind"] == "success"]
    assert len(successes) >= min_successes
    assert [r["id"] for r in successes if classify_result(r["text"], tool=r["tool"]).failed] == []


def test_blind13_keeps_its_scorings_and_takes_no_success_for_a_failure() -> None:
    errors = [r for r in BLIND13 if r["kind"] == "error"]
    classifier = Classifier()
    right = sum(classifier.classify(r["text"]).category == r["category"] for r in errors)
    assert len(errors) == BLIND13_FIRST_SCORING[1]
    assert right >= max(BLIND13_FIRST_SCORING[0], BLIND13_AFTER_READING)
    successes = [r for r in BLIND13 if r["kind"] == "success"]
    assert len(successes) >= 44
    taken = [r["id"] for r in successes if classify_result(r["text"], tool=r["tool"]).failed]
    assert taken == BLIND13_FALSE_POSITIVES


@pytest.mark.parametrize(
    ("batch", "first_scoring", "min_successes"),
    [
        (24, BATCH24_FIRST_SCORING, 40),
        (25, BATCH25_FIRST_SCORING, 40),
        (27, BATCH27_FIRST_SCORING, 25),
        (28, BATCH28_FIRST_SCORING, 12),
        (29, BATCH29_FIRST_SCORING, 5),
        (30, BATCH30_FIRST_SCORING, 4),
        (31, BATCH31_FIRST_SCORING, 20),
        (32, BATCH32_FIRST_SCORING, 10),
        (33, BATCH33_FIRST_SCORING, 20),
        (34, BATCH34_FIRST_SCORING, 20),
        (35, BATCH35_FIRST_SCORING, 25),
        (36, BATCH36_FIRST_SCORING, 25),
        (39, BATCH39_FIRST_SCORING, 25),
        (41, BATCH41_FIRST_SCORING, 8),
        (43, BATCH43_FIRST_SCORING, 30),
        (45, BATCH45_FIRST_SCORING, 12),
        (48, BATCH48_FIRST_SCORING, 4),
        (50, BATCH50_FIRST_SCORING, 3),
        (53, BATCH53_FIRST_SCORING, 3),
        (55, BATCH55_FIRST_SCORING, 3),
    ],
)
def test_a_first_scored_batch_keeps_its_first_scoring_and_its_successes(
    batch: int, first_scoring: tuple[int, int], min_successes: int
) -> None:
    rows = [r for r in ROWS if r.get("batch") == batch]
    errors = [r for r in rows if r["kind"] == "error"]
    assert len(errors) == first_scoring[1]
    scores = leave_one_source_out(errors)
    assert sum(r for r, _ in scores.values()) >= first_scoring[0]
    successes = [r for r in rows if r["kind"] == "success"]
    assert len(successes) >= min_successes
    assert [r["id"] for r in successes if _taken_for_a_failure(r)] == []


def _taken_for_a_failure(row: dict[str, Any]) -> bool:
    """`classify_result` on a success as the guard sees it: the text, the tool, and the call's
    arguments where the row keeps them (a shell command decides what its exit status means)."""
    return classify_result(row["text"], tool=row["tool"], arguments=row.get("arguments")).failed


def test_no_successful_output_is_taken_for_a_failure() -> None:
    wrong = [
        (r["id"], verdict.reason)
        for r in SUCCESSES
        for verdict in [classify_result(r["text"], tool=r["tool"], arguments=r.get("arguments"))]
        if verdict.failed
    ]
    assert wrong == []


def _one_error_per_pattern() -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for row in ERRORS:
        got = Classifier().classify(row["text"])
        if got.known and got.category == row["category"]:
            seen.setdefault(got.pattern_id, row)
    return [seen[k] for k in sorted(seen)]


@pytest.mark.parametrize("row", _one_error_per_pattern(), ids=lambda r: r["id"])
def test_each_real_error_gets_guidance_the_model_can_act_on(row: dict[str, Any]) -> None:
    guidance = Interceptor().on_error({"name": "some_tool"}, row["text"])
    text = guidance.render()
    assert guidance.category == row["category"]
    assert len(text.encode("utf-8")) <= DEFAULT_MAX_BYTES
    assert "NEXT:" in text and "WHY: " in text
    if "{tool}" in PATTERNS_BY_ID[guidance.pattern_id].what:
        assert "`some_tool`" in text
