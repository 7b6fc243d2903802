import type { ErrorKind, LogError, Runtime } from '../offload';

/**
 * The table of error families the distiller knows. A family turns one concrete failure (E0382 in worker.rs)
 * into the reusable knowledge of a playbook: what the root cause is, how to confirm it, how to fix it, how to
 * verify. To add a family, append an entry — the first matching entry wins, so put specific ones before broad
 * ones (docs/economy.md explains the fields). Ids are valid skill names: lowercase letters, digits, hyphens.
 */
export interface ErrorFamily {
  id: string;
  title: string;
  /** Runtimes this family applies to; empty = any. */
  runtimes: Runtime[];
  /** Every given condition must hold: code in `codes`, kind in `kinds`, `message` matches the error message. */
  match: { codes?: string[]; kinds?: ErrorKind[]; message?: RegExp };
  rootCause: string;
  diagnosticSteps: string[];
  fixPattern: string[];
  verify: string[];
  tags: string[];
}

const rust = (r: Runtime[] = ['rust']) => r;

export const ERROR_FAMILIES: ErrorFamily[] = [
  // ---------------------------------------------------------------- Rust
  {
    id: 'rust-use-after-move',
    title: 'Rust use after move',
    runtimes: rust(),
    match: { codes: ['E0382'] },
    rootCause: 'A value without `Copy` was moved (passed by value, assigned, captured by a `move` closure or consumed by a method taking `self`) and then used again. Ownership went to the callee; the original binding is dead.',
    diagnosticSteps: [
      'Read the three labels rustc prints: "move occurs because … does not implement Copy", "value moved here", "value used here after move".',
      'Open the callee at the "value moved here" site: does it really need ownership, or only to read the value?',
      'Check loops: a move inside a loop body moves on the first iteration.',
    ],
    fixPattern: [
      'If the callee only reads: change its parameter to a borrow (`fn consume(batch: &Batch)`) and pass `&batch`.',
      'If both sides need their own copy: `.clone()` at the move site (cost: a deep copy) or share with `Rc`/`Arc`.',
      'If the value is consumed on purpose: use the result the callee returns instead of the old binding, or reorder so the last use comes before the move.',
    ],
    verify: ['`cargo build` (or `cargo check`) shows no E0382.', 'Run the tests that exercise the function whose signature changed.'],
    tags: ['rust', 'borrow-checker', 'ownership'],
  },
  {
    id: 'rust-mutable-borrow-conflict',
    title: 'Rust mutable borrow conflict',
    runtimes: rust(),
    match: { codes: ['E0502', 'E0499', 'E0506'] },
    rootCause: 'A mutable borrow is taken while an immutable (E0502) or another mutable (E0499) borrow of the same place is still alive because it is used later. Non-lexical lifetimes end a borrow at its last use — the later use keeps it alive.',
    diagnosticSteps: [
      'Find the three spans rustc labels: where the first borrow starts, where the conflicting borrow happens, where the first borrow is used later.',
      'Ask what the later use needs: often only a copied value (a length, an id) rather than the reference.',
      'For method calls on `self`, check whether a field borrow could be split from the rest of `self`.',
    ],
    fixPattern: [
      'Copy what you need out of the first borrow before mutating (`let n = self.items.len();`), so the borrow ends early.',
      'Reorder statements so the last use of the shared borrow comes before the mutation.',
      'Split borrows across disjoint fields, or restructure into a method that takes only the fields it needs.',
    ],
    verify: ['`cargo build` shows no E0502/E0499.', 'Check that the value used after the change is the intended one (old vs new state).'],
    tags: ['rust', 'borrow-checker', 'aliasing'],
  },
  {
    id: 'rust-refcell-borrow-mut-error',
    title: 'RefCell BorrowMutError (already borrowed)',
    runtimes: rust(),
    match: { kinds: ['panic'], message: /already (mutably )?borrowed|BorrowMutError|BorrowError/ },
    rootCause: 'A `RefCell` was borrowed mutably while another `Ref`/`RefMut` guard of the same cell was still alive — the borrow rules the compiler enforces statically are checked at run time and the second borrow panics. Typical: mutating the cell inside a loop over `cell.borrow()`, or re-entrant calls through `&self`.',
    diagnosticSteps: [
      'Run with `RUST_BACKTRACE=1`: the panic location is the second borrow; the backtrace shows the caller chain.',
      'Find the guard that is still alive: a `let view = cell.borrow()` in an enclosing scope, or a borrow held across a call back into the same object.',
      'Check whether the guard is a temporary kept alive by a `match`/`if let`/`for` expression.',
    ],
    fixPattern: [
      'Shorten the first guard: copy or collect what you need (`let updates: Vec<_> = cell.borrow().iter()…collect();`), drop it, then `borrow_mut()`.',
      'Use `try_borrow_mut()` where re-entrancy is legitimate and handle the `Err`.',
      'For plain values prefer `Cell`; for shared state across threads `Mutex`/`RwLock`.',
    ],
    verify: ['Re-run the program path that panicked; no "already borrowed" panic.', 'Add a test that exercises the re-entrant path.'],
    tags: ['rust', 'refcell', 'interior-mutability', 'panic'],
  },
  {
    id: 'rust-unwrap-on-none',
    title: 'Rust unwrap on None / Err',
    runtimes: rust(),
    match: { kinds: ['panic'], message: /called `(Option|Result)::(unwrap|expect)\(\)`|on a `None` value|on an `Err` value/ },
    rootCause: 'An `Option`/`Result` assumed to hold a value was `None`/`Err` at run time.',
    diagnosticSteps: ['Go to the panic location; identify the value being unwrapped.', 'Find where it is produced and which input makes it empty.'],
    fixPattern: ['Propagate with `?`, or handle the empty case explicitly (`match`, `unwrap_or_else`, `ok_or(...)`).'],
    verify: ['Add a test with the input that produced None/Err.'],
    tags: ['rust', 'panic', 'option'],
  },
  // ---------------------------------------------------------------- C / C++
  {
    id: 'heap-use-after-free',
    title: 'Heap use after free',
    runtimes: ['c-cpp', 'rust', 'go'],
    match: { codes: ['heap-use-after-free'] },
    rootCause: 'Memory was read or written after it was freed: a dangling pointer outlived the owner that deleted it.',
    diagnosticSteps: [
      'Read the three stacks AddressSanitizer prints: the bad access (first frame in your code is the use), "freed by thread" (who deleted it), "previously allocated by" (who created it).',
      'Decide who owns the object: the freeing function or the caller that still uses it.',
      'Look for copies of the raw pointer kept after ownership was handed over.',
    ],
    fixPattern: [
      'Make ownership explicit: `std::unique_ptr<T>` moved into the function that frees it, so the caller cannot use it afterwards.',
      'If several parties use it: `std::shared_ptr<T>` (and `weak_ptr` for observers).',
      'If the caller must keep using it: do not free in the callee; free after the last use and null the pointer.',
    ],
    verify: ['Rebuild with `-fsanitize=address -fno-omit-frame-pointer -g` and re-run: no ASan report.', 'Run under the same input that triggered it.'],
    tags: ['cpp', 'memory-safety', 'asan'],
  },
  {
    id: 'buffer-overflow',
    title: 'Buffer overflow',
    runtimes: ['c-cpp'],
    match: { codes: ['heap-buffer-overflow', 'stack-buffer-overflow', 'global-buffer-overflow'] },
    rootCause: 'An access past the end (or before the start) of an array or allocation.',
    diagnosticSteps: ['ASan prints the allocation size and the offset of the bad access: compare them.', 'Check loop bounds (`<=` vs `<`) and size calculations (bytes vs elements).'],
    fixPattern: ['Fix the bound; prefer `std::vector::at`, `std::span`, or sized APIs (`snprintf`, `memcpy` with computed sizes).'],
    verify: ['Re-run under ASan with the failing input.'],
    tags: ['cpp', 'memory-safety', 'asan'],
  },
  {
    id: 'c-undeclared-identifier',
    title: 'C/C++ undeclared identifier',
    runtimes: ['c-cpp'],
    match: { codes: ['undeclared-identifier'] },
    rootCause: 'A name is used that is not declared in scope: a typo, a missing include, or a declaration in a scope that ended.',
    diagnosticSteps: ['Read gcc\'s "did you mean" hint.', 'If the name is from a library, find the header that declares it.', 'In a long build, search for the first `error:` line: later errors are often consequences.'],
    fixPattern: ['Fix the spelling, add the missing `#include`, or move the declaration into scope.'],
    verify: ['Rebuild the translation unit (`make build/<unit>.o`), then the full build.'],
    tags: ['c', 'cpp', 'compile-error'],
  },
  {
    id: 'cpp-type-mismatch',
    title: 'C++ argument type mismatch',
    runtimes: ['c-cpp'],
    match: { codes: ['type-mismatch', 'no-matching-function'] },
    rootCause: 'A value of one type is passed or bound where another is declared (e.g. `std::vector<Shape*>` where `const std::vector<Shape>&` is expected): the container or pointer-ness differs along the call chain.',
    diagnosticSteps: [
      'Read both types in the message and the `note: in passing argument N` / candidate lines that follow it.',
      'Decide which side is right: the declared parameter type or the caller\'s value.',
      'For templates and overloads, read the first candidate\'s "no known conversion" line.',
    ],
    fixPattern: [
      'Change the parameter to what callers really hold (`const std::vector<Shape*>&`, or a template / `std::span`).',
      'Or convert explicitly at the call site (build the right container, dereference), not with a cast.',
    ],
    verify: ['Recompile the translation unit; run the tests that cover the function.'],
    tags: ['cpp', 'types', 'compile-error'],
  },
  {
    id: 'c-link-error',
    title: 'Undefined reference at link time',
    runtimes: ['c-cpp'],
    match: { kinds: ['link-error'] },
    rootCause: 'A symbol is declared but no object file or library given to the linker defines it.',
    diagnosticSteps: ['Find which file should define the symbol.', 'Check the link line: missing object, library order, C vs C++ name mangling (`extern "C"`).'],
    fixPattern: ['Add the defining source/library to the build, fix the library order, or add `extern "C"`.'],
    verify: ['Re-link.'],
    tags: ['c', 'cpp', 'linker'],
  },
  // ---------------------------------------------------------------- Python
  {
    id: 'python-key-error',
    title: 'Python KeyError on a missing key',
    runtimes: ['python'],
    match: { codes: ['KeyError'] },
    rootCause: 'A dict (or a mapping used by a library, e.g. `string.Template.substitute`) was indexed with a key it does not contain: the data has a different shape than the code assumes.',
    diagnosticSteps: [
      'Take the innermost frame in your own code (library frames below it only propagate the lookup).',
      'Print the mapping\'s keys at that point and compare with the missing key from the message.',
      'Find where the mapping is built: is the key optional, misspelled, or produced by another version of the data?',
      'For chained tracebacks ("The above exception was the direct cause…"), the first traceback is the cause.',
    ],
    fixPattern: [
      'If the key is required: validate input at the boundary and raise a domain error naming the missing field.',
      'If it is optional: `mapping.get(key, default)` or `safe_substitute` for templates.',
      'Keep the cause when re-raising: `raise DomainError(...) from exc`.',
    ],
    verify: ['Add a test with the input that lacked the key.', 'Re-run the failing command.'],
    tags: ['python', 'keyerror', 'data-validation'],
  },
  {
    id: 'python-none-attribute',
    title: "Python AttributeError on None",
    runtimes: ['python'],
    match: { codes: ['AttributeError'], message: /'NoneType' object has no attribute/ },
    rootCause: 'A function returned `None` (often a missing `return` or a lookup that found nothing) and the caller used it as an object.',
    diagnosticSteps: ['Find where the None came from (the value on the failing line).'],
    fixPattern: ['Return the value; or check for None and handle the empty case explicitly.'],
    verify: ['Add a test for the empty case.'],
    tags: ['python', 'none'],
  },
  {
    id: 'python-module-not-found',
    title: 'Python module not found',
    runtimes: ['python'],
    match: { codes: ['ModuleNotFoundError', 'ImportError'] },
    rootCause: 'The interpreter running the code cannot import the module: wrong environment, missing dependency, or a path/package layout problem.',
    diagnosticSteps: ['`python3 -c "import sys; print(sys.executable, sys.path)"` in the same shell.', 'Check the package is installed in that interpreter (`python3 -m pip show NAME`).'],
    fixPattern: ['Install into the right environment, or fix the package layout (`__init__.py`, `PYTHONPATH`, editable install).'],
    verify: ['Re-run the import.'],
    tags: ['python', 'imports', 'environment'],
  },
  {
    id: 'python-file-not-found',
    title: 'Python FileNotFoundError',
    runtimes: ['python'],
    match: { codes: ['FileNotFoundError'] },
    rootCause: 'A path that does not exist was opened: a relative path resolved against an unexpected working directory, or a folder never created.',
    diagnosticSteps: ['Print the absolute path and the working directory.', 'Check who is responsible for creating the folder.'],
    fixPattern: ['Resolve paths from a known root (`Path(__file__).parent`), create folders up front (`mkdir(parents=True, exist_ok=True)`).'],
    verify: ['Run from another working directory.'],
    tags: ['python', 'filesystem'],
  },
  // ---------------------------------------------------------------- tests (any runtime)
  {
    id: 'test-assertion-failure',
    title: 'Failing test assertion',
    runtimes: [],
    // An exception thrown inside a test (a TypeError in the code under test) is that exception's family, not this one.
    match: { kinds: ['test-failure'], codes: ['AssertionError', 'assertion-failed', 'test-failure', 'AssertionFailedError', 'ComparisonFailure', 'ERR_ASSERTION', 'JestAssertionError'] },
    rootCause: 'The code under test returns a different value than the test expects for one input: either a real bug in that code path or a wrong expectation.',
    diagnosticSteps: [
      'Read the assertion introspection (pytest `E` lines / the runner diff): actual vs expected, and the parametrised input that failed.',
      'Check whether only some parameters fail: look for special cases in the code for exactly those inputs.',
      'Run only the failing test (`pytest tests/x.py::test_name[param]`, `cargo test name`, `go test -run Name`).',
    ],
    fixPattern: ['Fix the code path for the failing input; change the expectation only if the test was wrong, and say why in the commit.'],
    verify: ['Re-run the single failing test, then the whole suite.'],
    tags: ['testing'],
  },
  // ---------------------------------------------------------------- JavaScript / TypeScript
  {
    id: 'js-property-of-undefined',
    title: 'Reading a property of undefined',
    runtimes: ['javascript', 'typescript'],
    match: { codes: ['TypeError'], message: /Cannot read propert(y|ies) of (undefined|null)|undefined is not an object|null is not an object/ },
    rootCause: 'A value assumed to be an object is `undefined`/`null` for some inputs — typically an optional field of external data (a record without a profile) used without a check.',
    diagnosticSteps: [
      'Take the first stack frame in your code (not node_modules or node:internal) and the property named in the message.',
      'Log or inspect the object one level up: which records lack the field?',
      'Decide whether missing data is legal (handle it) or a bug upstream (validate at the boundary).',
    ],
    fixPattern: [
      'Legal absence: optional chaining with an explicit fallback (`user.profile?.name ?? "(unknown)"`).',
      'Illegal absence: validate at the boundary (schema, zod) and fail with a clear message.',
      'In TypeScript, type the field as optional so the compiler forces the check.',
    ],
    verify: ['Add a test with a record that lacks the field.', 'Re-run the failing command.'],
    tags: ['javascript', 'typescript', 'null-safety'],
  },
  {
    id: 'js-not-a-function',
    title: 'TypeError: x is not a function',
    runtimes: ['javascript', 'typescript'],
    match: { codes: ['TypeError'], message: /is not a function/ },
    rootCause: 'A value called as a function is something else: a wrong import (default vs named, CJS vs ESM), a shadowed name, or a missing method.',
    diagnosticSteps: ['Log `typeof` and the value at the call site.', 'Check the import form against the module\'s exports.'],
    fixPattern: ['Fix the import (`import { x }` vs `import x`), or the object that should provide the method.'],
    verify: ['Re-run.'],
    tags: ['javascript', 'modules'],
  },
  {
    id: 'js-unhandled-rejection',
    title: 'Unhandled promise rejection',
    runtimes: ['javascript', 'typescript'],
    match: { kinds: ['unhandled-rejection'] },
    rootCause: 'A promise rejected and nothing awaited it or attached `.catch()` — a fire-and-forget call in a loop or `.then()` without a rejection handler. Since Node 15 this terminates the process. Rejecting with a non-Error (a string) also loses the stack trace.',
    diagnosticSteps: [
      'Read the rejection reason in the message; when it is a string, search the code for where that text is produced.',
      'Find promise-returning calls that are not awaited (`array.map(async …)` without `Promise.all`, `.then()` without `.catch()`).',
      'Run with `node --trace-uncaught` or `--unhandled-rejections=strict` to get the origin.',
    ],
    fixPattern: [
      'Await every promise: `await Promise.allSettled(items.map(fn))` and handle each rejected result.',
      'Reject with `Error` objects (`reject(new Error(...))`) so the stack trace survives.',
      'Add a `.catch()` at the end of detached chains that logs and decides.',
    ],
    verify: ['Re-run the path that failed: the process exits 0 and the failure is reported, not crashed on.'],
    tags: ['javascript', 'async', 'promises'],
  },
  {
    id: 'ts-type-mismatch',
    title: 'TypeScript argument / assignment type mismatch',
    runtimes: ['typescript'],
    match: { codes: ['TS2345', 'TS2322'] },
    rootCause: 'A value of one type flows into a place declared with another (e.g. a string id passed where a number is expected): the declared types disagree along the call chain.',
    diagnosticSteps: ['Read the two types in the message.', 'Follow the value back to where its type is declared; decide which declaration is right.'],
    fixPattern: ['Fix the declaration at the source (`id: number` end to end) or convert explicitly at the boundary (`Number(id)` with validation); avoid `as` casts.'],
    verify: ['`npx tsc --noEmit` is clean.'],
    tags: ['typescript', 'types'],
  },
  {
    id: 'ts-missing-property',
    title: 'TypeScript property does not exist on type',
    runtimes: ['typescript'],
    match: { codes: ['TS2339', 'TS2551'] },
    rootCause: 'Code reads a property the type does not declare: a typo, a stale interface, or a union that must be narrowed first.',
    diagnosticSteps: ['Check the interface/type named in the message.', 'If the property exists at run time, the type is stale; if not, the code is wrong.'],
    fixPattern: ['Add the field to the type, fix the name, or narrow the union (`if ("x" in v)`).'],
    verify: ['`npx tsc --noEmit` is clean.'],
    tags: ['typescript', 'types'],
  },
  {
    id: 'ts-possibly-undefined',
    title: 'TypeScript object is possibly undefined',
    runtimes: ['typescript'],
    match: { codes: ['TS2532', 'TS18048', 'TS2531', 'TS18047'] },
    rootCause: 'A value typed `T | undefined` (or null) is used without a check under strictNullChecks.',
    diagnosticSteps: ['Find where the optional type comes from (`find`, optional fields, indexing).'],
    fixPattern: ['Narrow with a check and handle the empty case; use `!` only with a comment proving presence.'],
    verify: ['`npx tsc --noEmit` is clean.'],
    tags: ['typescript', 'null-safety'],
  },
  {
    id: 'js-uncaught-exception',
    title: 'Uncaught JavaScript exception',
    runtimes: ['javascript', 'typescript'],
    match: { kinds: ['uncaught'] },
    rootCause: 'An error was thrown and no caller handled it. If the stack holds only an async function frame, it was thrown after an `await` in a promise nobody awaited.',
    diagnosticSteps: ['Take the first user frame and the error message.', 'Check whether the throwing function is awaited by its caller.'],
    fixPattern: ['Handle the error where a decision can be made; await async calls; validate inputs before use.'],
    verify: ['Re-run; add a test for the failing input.'],
    tags: ['javascript', 'exceptions'],
  },
  // ---------------------------------------------------------------- Go
  {
    id: 'go-deadlock',
    title: 'Go deadlock: all goroutines are asleep',
    runtimes: ['go'],
    match: { kinds: ['fatal'], message: /all goroutines are asleep - deadlock/ },
    rootCause: 'Every goroutine is blocked — typically a send on an unbuffered channel with no receiver running yet (the sender and receiver are the same goroutine), a receive on a channel nobody closes, or a WaitGroup/mutex that is never released.',
    diagnosticSteps: [
      'Read each goroutine\'s state in brackets (`[chan send]`, `[chan receive]`, `[semacquire]`) and its first frame in your code.',
      'For `chan send` in main: is the receiver started before the send, in another goroutine?',
      'For `chan receive`: who closes the channel, and is `close` reached on every path?',
    ],
    fixPattern: [
      'Run the producer in its own goroutine (`go produce(ch)`) and `close(ch)` when done; the consumer ranges over the channel.',
      'Use a WaitGroup to close the channel after all producers finish.',
      'Do not paper over with a buffer size unless the bound is part of the design.',
    ],
    verify: ['`go run` / `go test -race` completes.', 'Add a test with a timeout (`-timeout 10s`).'],
    tags: ['go', 'concurrency', 'channels'],
  },
  {
    id: 'go-nil-map',
    title: 'Go assignment to entry in nil map',
    runtimes: ['go'],
    match: { kinds: ['panic'], message: /assignment to entry in nil map/ },
    rootCause: 'A map field or variable was declared but never initialised (its zero value is nil); reads work, writes panic.',
    diagnosticSteps: ['Take the first frame in your code: the map being written.', 'Find where the enclosing struct is created: a zero value (`var r Registry`) skips initialisation.'],
    fixPattern: [
      'Provide a constructor that makes the map (`func NewRegistry() *Registry { return &Registry{services: map[string]string{}} }`).',
      'Or make the zero value usable: allocate lazily before the first write (`if r.m == nil { r.m = make(map[K]V) }`).',
    ],
    verify: ['Add a test that uses the zero value / constructor and writes to the map.'],
    tags: ['go', 'maps', 'zero-value'],
  },
  {
    id: 'go-nil-pointer',
    title: 'Go nil pointer dereference',
    runtimes: ['go'],
    match: { kinds: ['panic'], message: /invalid memory address or nil pointer dereference/ },
    rootCause: 'A nil pointer (often an ignored error return leaving a nil value) was dereferenced.',
    diagnosticSteps: ['Find the nil value in the first user frame.', 'Check error returns that were ignored just before.'],
    fixPattern: ['Check errors before using returned values; initialise pointers.'],
    verify: ['Add a test for the failing path.'],
    tags: ['go', 'nil'],
  },
  {
    id: 'go-concurrent-map-access',
    title: 'Go concurrent map writes',
    runtimes: ['go'],
    match: { kinds: ['fatal'], message: /concurrent map (read and map write|writes|iteration and map write)/ },
    rootCause: 'A map is shared between goroutines without synchronisation.',
    diagnosticSteps: ['Run with `-race` to find both accesses.'],
    fixPattern: ['Guard the map with a `sync.Mutex`/`RWMutex`, or use `sync.Map` for append-mostly caches.'],
    verify: ['`go test -race` is clean.'],
    tags: ['go', 'concurrency', 'race'],
  },
];

/** When no family matches: a generic playbook per runtime so the skill still has steps. */
export function genericFamily(runtime: Runtime, err?: LogError): ErrorFamily {
  const rt = runtime === 'unknown' ? 'generic' : runtime;
  return {
    id: `${rt}-${(err?.kind ?? 'failure').replace(/[^a-z0-9]+/g, '-')}`,
    title: `${rt === 'c-cpp' ? 'C/C++' : rt} ${err?.kind ?? 'failure'}`,
    runtimes: [],
    match: {},
    rootCause: err ? `The run failed with ${err.code}: ${err.message}. No specific family in the table matched; record the cause you find here.` : 'No structured error was recognised in the trace.',
    diagnosticSteps: ['Find the first error in the log (later ones are often consequences).', 'Go to the first frame in your own code.', 'Reproduce with the smallest input.'],
    fixPattern: ['Fix the cause at the first user frame; add a regression test.'],
    verify: ['Re-run the failing command.'],
    tags: [rt],
  };
}

export function matchFamily(err: LogError | undefined, runtime: Runtime, families: ErrorFamily[] = ERROR_FAMILIES): ErrorFamily {
  if (err) {
    for (const f of families) {
      if (f.runtimes.length && !f.runtimes.includes(err.runtime) && !f.runtimes.includes(runtime)) continue;
      const m = f.match;
      if (m.codes && !m.codes.includes(err.code) && !(err.chain ?? []).some((c) => m.codes!.includes(c.code))) continue;
      if (m.kinds && !m.kinds.includes(err.kind)) continue;
      if (m.message && !m.message.test(err.message)) continue;
      return f;
    }
  }
  return genericFamily(runtime, err);
}
