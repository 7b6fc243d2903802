/**
 * The sentence grammar of rule inference (inferred.ts): code spans are masked as `§n§` first, so every pattern
 * can point at the spans a clause forbids. Kept apart from the reading logic so both stay small.
 */

/** Statuses under which a decision is not made yet: its prose is a proposal, not a rule. */
export const UNDECIDED = new Set(['proposed', 'draft', 'rfc', 'open', 'pending', 'wip', 'discussion', 'review', 'consultation', 'planned', 'idea']);

const SL = '§\\d+§(?:\\s*(?:,|,?\\s*and|,?\\s*or|\\/|,?\\s*nor|,?\\s*as\\s+well\\s+as)\\s*§\\d+§)*';
const NOUN = '(?:\\s+(?:library|libraries|package|packages|module|modules|function|functions|method|methods|calls?|apis?|types?|components?|patterns?|hooks?|class(?:es)?|keywords?|statements?|imports?|dependenc(?:y|ies)|directives?|flags?|options?|props?|helpers?|utilit(?:y|ies)|operators?|syntax|annotations?|decorators?|macros?|globals?|objects?|interfaces?|propert(?:y|ies)|constructs?|comments?|tags?|attributes?|approach|style|idiom|wrappers?|clients?))?';
const NEG = "(?:do\\s+not|don['’]t|does\\s+not|doesn['’]t|never|must\\s+not|mustn['’]t|should\\s+not|shouldn['’]t|shall\\s+not|will\\s+not|won['’]t|cannot|can['’]t|may\\s+not|are\\s+not\\s+to|is\\s+not\\s+to|(?:are|am|is)\\s+not\\s+going\\s+to|we['’]re\\s+not\\s+going\\s+to|no\\s+longer|avoids?|refrain\\s+from|stop|ban|forbid|prohibit|disallow)";
const VERBS = '(?:\\s+(?:be|from|use|uses|using|used|import|imports|importing|imported|call|calls|calling|called|instantiate|instantiates|instantiating|construct|constructs|invokes|add|adding|added|introduce|introducing|depend\\s+on|depending\\s+on|rely\\s+on|relying\\s+on|write|writing|reference|referencing|install|installing|include|including|pull\\s+in|bring\\s+in|invoke|invoking|reach\\s+for|the\\s+use\\s+of|use\\s+of|usage\\s+of|uses\\s+of|any|the|new|direct|directly|raw|manual|manually|ever|again|anymore|any\\s+more|more|further|calls?\\s+to|imports?\\s+of|explicit|explicitly|global|plain|bare|a|an)\\b)*';
const PASSIVE = '(?:(?:must|should|shall|may|can|will)\\s+(?:not|never|no\\s+longer)\\s+(?:be\\s+)?(?:used|imported|called|added|introduced|referenced|installed|included|allowed|permitted|invoked|relied\\s+(?:up)?on)|(?:cannot|can[\'’]t|mustn[\'’]t|shouldn[\'’]t|won[\'’]t)\\s+be\\s+(?:used|imported|called|added|introduced|allowed|permitted)|(?:is|are|will\\s+be|shall\\s+be|should\\s+be|must\\s+be|is\\s+now|are\\s+now)\\s+(?:now\\s+)?(?:forbidden|prohibited|banned|disallowed|not\\s+allowed|not\\s+permitted|deprecated|avoided|discouraged|off-limits|not\\s+to\\s+be\\s+used)|(?:is|are)\\s+not\\s+(?:to\\s+be\\s+)?(?:used|allowed|permitted))';
const PRE = '(?:(?:the|any|all|new|direct|raw)\\s+)*(?:(?:use|usage|uses|import|imports|calls?|references?)\\s+(?:of|to)\\s+)?(?:the\\s+)?';

export const RE_ACTIVE = new RegExp(`(?:^|[\\s,;:(—–-])${NEG}\\b${VERBS}\\s*(?:(?:the|a|an|any)\\s+)?(${SL})`, 'i');
/** "Avoid blocking constructs such as `Wait()`, `.Result`": the examples are what is forbidden. */
export const RE_SUCH_AS = new RegExp(`(?:^|[\\s,;:(—–-])${NEG}\\b${VERBS}(?:\\s+[a-z][\\w-]*){1,4}?,?\\s+(?:such\\s+as|like|e\\.g\\.,?|including|for\\s+example,?)\\s+(${SL})`, 'i');
/** A bullet or sentence that starts "No `console.log` …" / "No direct `fetch` calls". */
export const RE_NO = new RegExp(`(?:^|\\b(?:should|must|shall)\\s+(?:be\\s+|contain\\s+|have\\s+)?)(?:no|zero)\\s+(?:(?:new|direct|more|raw|manual|global|further|additional)\\s+)?(${SL})`, 'i');
export const RE_PASSIVE = new RegExp(`(?:^|[\\s,;:(—–-])${PRE}(${SL})${NOUN}\\s+${PASSIVE}\\b`, 'i');
/** "Modules must not be sourced with `?ref=master`": the span is the means the passive forbids (with / using / via / through only; "without" is a requirement). */
export const RE_MEANS = new RegExp(`(?:^|[\\s,;:(—–-])(?:(?:must|should|shall|may|can|will)\\s+(?:not|never)|cannot|can['’]t|mustn['’]t|shouldn['’]t)\\s+be\\s+[a-z]+ed\\s+(?:with|using|via|through)\\s+(?:(?:the|a|an|any)\\s+)?(${SL})`, 'i');
export const RE_INSTEAD = new RegExp(`\\b(?:instead\\s+of|rather\\s+than|in\\s+place\\s+of)\\s+(?:(?:using|the|a|an|any)\\s+)*(${SL})`, 'i');
export const RE_PREFER = new RegExp(`\\b(?:prefer(?:s|red)?|favou?r)\\b[^;]*?\\bover\\s+(?:(?:using|the|a|an|any)\\s+)*(${SL})`, 'i');
export const RE_REPLACE = new RegExp(`\\breplace\\s+(?:(?:all|any|the|existing|uses\\s+of|usages?\\s+of|calls\\s+to)\\s+)*(${SL})${NOUN}\\s+(?:with|by)\\b`, 'i');
export const RE_REPLACED = new RegExp(`(?:^|[\\s,;:(])${PRE}(${SL})${NOUN}\\s+(?:is|are|will\\s+be|should\\s+be|must\\s+be|shall\\s+be|has\\s+been|have\\s+been)\\s+(?:replaced|superseded)\\s+by\\b`, 'i');
export const RE_AWAY = new RegExp(`\\b(?:migrate|move|switch|transition)\\s+(?:(?:gradually|fully|completely)\\s+)?(?:away\\s+)?from\\s+(?:(?:using|the)\\s+)*(${SL})`, 'i');
export const RE_FAVOUR = new RegExp(`\\b(?:deprecate|drop|abandon|retire|phase\\s+out)\\s+(?:(?:the|all|any)\\s+)*(${SL})${NOUN}\\s+in\\s+favou?r\\s+of\\b`, 'i');
/** "`console.log` is allowed only in `scripts/`", "`X` may only be used in …", "only use `X` in …". */
export const RE_ONLY = new RegExp(`(?:^|[\\s,;:(])${PRE}(${SL})${NOUN}\\s+(?:(?:is|are)\\s+)?(?:(?:may|can|should|must|shall)\\s+)?(?:only\\s+)?(?:be\\s+)?(?:(?:allowed|permitted|used|acceptable|ok|okay|tolerated|to\\s+be\\s+used|appear|live|belong)\\s+only|only\\s+(?:be\\s+)?(?:allowed|permitted|used|acceptable|appear|live|belong)|(?:is|are)\\s+restricted)\\s+(?:to|in|within|inside|under)\\b(.*)$`, 'i');
export const RE_ONLY_USE = new RegExp(`(?:^|[\\s,;:(])only\\s+(?:use|call|import)\\s+(${SL})${NOUN}\\s+(?:in|within|inside|under)\\b(.*)$`, 'i');

/** Past, alternatives, consequences, hypotheticals: a sentence with any of these never becomes a rule. */
export const NOT_NORMATIVE = /\b(?:was|were|had|did|previously|formerly|historically|in\s+the\s+past|used\s+to|originally|until\s+now|so\s+far|considered|consider|considering|option\s+\d|alternatives?|would|could|might|this\s+means|which\s+means|that\s+means|as\s+a\s+result|consequently|we\s+decided\s+against|decided\s+not\s+to\s+(?:ban|forbid|avoid)|rejected|pros?\b|cons\b|trade-?offs?|for\s+example,?\s+if|suppose|unless|except\s+when|if\s+(?:we|you|possible|needed|necessary|required)|where\s+possible|when\s+possible|if\s+in\s+doubt|tbd|todo|(?:in\s+order\s+to|so\s+as\s+to|to|helps?(?:\s+to)?|this|which|that|it)\s+avoids?|(?:this|which|that|it)\s+will)\b/i;
/** Opening words that make a sentence an alternative or an aside, not a decision. */
export const NOT_NORMATIVE_START = /^(?:option|alternative|pro|con|good|bad|neutral|positive|negative|example|note|e\.g|i\.e|see|cf|why|because|since|although|though|while|whereas|historically|previously)\b/i;

/** A scope written in words: no glob can stand for it, so a rule with it would fire outside the intended files. */
export const WORD_SCOPE = /\b(?:in|within|inside|under|across|for|from|outside(?:\s+of)?|except\s+in|apart\s+from|on\s+the)\s+(?:(?:the|all|any|our|each|every|existing|new|other|a|an|your|their|its)\s+)*(?:[\w.-]+\s+)?(?:front-?end|back-?end|client(?:-side)?|server(?:-side)?|browsers?|node(?:\.js|js)?|deno|tests?|test\s+(?:code|files|suites?)|specs?|production|prod|plugins?|packages?|modules?|services?|microservices?|components?|apps?|applications?|librar(?:y|ies)|cli|scripts?|migrations?|handlers?|controllers?|views?|models?|ui|web|mobile|ios|android|api|apis|core|shared|common|domain|infrastructure|infra|examples?|docs|documentation|ci|pipelines?|lambdas?|functions?|workers?|jobs?|templates?|stories|storybook|fixtures?|vendor|legacy|isomorphic|typescript|javascript|python|go|rust|java|kotlin|ruby|php|react|layers?|projects?|repos|repositories|monorepo|workspaces?|crates?|binaries|containers?|images?|environments?|clusters?)\b/i;
export const SUBJECT_SCOPE = /\b(?:front-?end|back-?end|client|server|browser|node(?:\.js)?|tests?|test\s+code|specs?|production|plugins?|packages?|modules?|services?|components?|apps?|applications?|librar(?:y|ies)|cli|scripts?|migrations?|handlers?|controllers?|isomorphic|frontend|backend)\b/i;
/** The positive half of "use X instead of Y" must be a decision (imperative, or we/code will/should/must …), not a description. */
export const DECIDED_USE = new RegExp([
  "^(?:(?:so|therefore|thus|hence|also|instead|then|going\\s+forward|from\\s+now\\s+on|always)[, ]+)*(?:use|prefer|choose|adopt|pick|go\\s+with|opt\\s+for|standardi[sz]e\\s+on|favou?r)\\b",
  "\\b(?:we|you|teams?|developers?|contributors?|engineers?|code|it|they|everyone)\\s+(?:will|shall|should|must|are\\s+to|need\\s+to|have\\s+to|ought\\s+to)\\s+(?:always\\s+|now\\s+|only\\s+|instead\\s+)?(?:use|prefer|adopt|choose|standardi[sz]e|rely|call|import)\\b",
  "\\b(?:should|must|shall|will|is\\s+to|are\\s+to)\\s+(?:now\\s+|always\\s+)?be\\s+(?:used|preferred|adopted|imported|called)\\b",
  "\\bwe\\s+(?:(?:have\\s+)?(?:decided|agreed|chosen)\\s+to\\s+)?(?:use|prefer|adopt|standardi[sz]e\\s+on|are\\s+going\\s+to\\s+use)\\b",
  "\\b(?:prefer|preferred)\\b",
].join('|'), 'i');
export const MAX_SENTENCE = 1200;
/** A clause that opens with a place ("In Reactor code paths, …", "For the admin UI …"), except harmless ones. */
export const LEADING_PLACE = /^(?:in|within|inside|for|under|across|on)\s+(?!(?:general|short|addition|example|instance|particular|practice|summary|future|the\s+future|principle|all\s+cases|any\s+case|this\s+(?:repo|repository|project|codebase|adr|decision)|our\s+(?:codebase|code|repo|repository|project)|the\s+(?:codebase|repo|repository|project)|new\s+code|all\s+(?:new\s+)?code|code|order\s+to|favou?r|§)\b)[^,§]*?\b(?:we|you|they|developers?|teams?|code|one|it)?\s*(?:,|should|must|shall|will|do|don['’]t|never|avoid|may|cannot|can['’]t)/i;
export const MAX_SENTENCES = 300;
export const MAX_RULES = 100;
export const STRONG_REQUIRE = /\b(?:every|each)\b[^;]*\b(?:must|shall|needs?\s+to|has\s+to|always)\b/i;
/** Third-person forms ("New code avoids …", "Code does not import …"): a decision only when the subject is code itself. */
export const THIRD_PERSON = /^\W*(?:does\s+not|doesn['’]t|avoids|(?:never|no\s+longer)\s+(?:uses|imports|calls|invokes|instantiates|constructs))\b/i;
export const CODE_SUBJECT = /^(?:(?:all|new|our|any)\s+)*code$/i;
/**
 * A plural kind of code as the subject of a present-tense rule ("New components avoid …", "Handlers never use …",
 * "Services do not import …"): generic, so the rule applies to all files (the kind names no folder a glob could
 * stand for; the report says so). Qualified subjects ("Frontend components", "Test helpers") stay scopes in words.
 */
export const GENERIC_SUBJECT = /^(?:(?:all|new|our|any)\s+)?(?:components|handlers|services|controllers|modules|classes|functions|hooks|views|models|workers|jobs|endpoints|routes|resolvers|repositories)$/i;
/** Verbs of the deny clause that say how the span is used: called (a method, not a package) or constructed. */
export const CALL_VERB = /\b(?:call|calls|calling|invoke|invokes|invoking)\b/i;
export const NEW_VERB = /\b(?:instantiat\w*|construct|constructs|constructing)\b/i;
/** A condition after the forbidden span ("… `constantize` on user input"): the guard cannot check it. */
export const CONDITION = /^\s*(?:directly\s+)?((?:on|with|against|when|whenever|if|while)\s+(?!§)[^,;§]*[^,;§\s.])/i;
