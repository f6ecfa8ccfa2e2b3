// Word groups the answer generator swaps between, so that the small training corpus does not come
// back as long verbatim runs: real answers to similar questions share phrasing, but far less of it
// than a Markov chain over a few thousand sentences repeats. Each line is one group of words that
// can stand for each other in most sentences.
const GROUPS = `
great excellent strong solid outstanding superb terrific
good decent reasonable fine capable respectable
best top leading finest strongest foremost
popular widely-used well-known favored common prevalent
easy simple straightforward effortless painless intuitive
easier simpler quicker smoother friendlier
hard difficult tricky challenging demanding tough
cheap inexpensive affordable low-cost budget-friendly economical
cheaper less_expensive more_affordable lower-cost thriftier
expensive pricey costly premium high-end steep
fast quick speedy rapid snappy swift
slow sluggish laggy unhurried
large big sizable substantial considerable hefty
small little modest compact lean
new recent fresh modern current latest
many numerous plenty several countless lots
most nearly_all the_majority_of
often frequently regularly commonly routinely typically
usually generally normally typically ordinarily
also additionally furthermore likewise too
however still yet nonetheless though
because since given_that
important essential crucial vital key critical
useful helpful handy practical valuable beneficial
powerful robust capable potent feature-rich
flexible adaptable versatile configurable customizable
reliable dependable trustworthy consistent stable
secure safe protected hardened
clean tidy uncluttered polished neat
complex complicated intricate involved elaborate
basic simple elementary fundamental core
advanced sophisticated in-depth deep extensive
limited restricted constrained narrow
free no-cost complimentary gratis
offers provides includes delivers gives supplies
offer provide include deliver give supply
uses relies_on leverages employs utilizes
use rely_on leverage employ utilize
helps assists supports aids enables
help assist support aid enable
choose pick select opt_for go_with
chooses picks selects opts_for goes_with
prefer favor lean_toward gravitate_to
need require want demand
needs requires wants demands
compare weigh contrast evaluate assess benchmark
check verify confirm review examine inspect
consider weigh contemplate think_about look_at
recommend suggest advise propose endorse
recommended suggested advised favored endorsed
praise commend applaud laud celebrate
praised commended applauded lauded celebrated
note mention point_out observe remark highlight
notes mentions points_out observes remarks highlights
find discover see notice encounter
found discovered saw noticed encountered
start begin kick_off launch
build create construct assemble develop
improve enhance boost upgrade strengthen refine
reduce lower cut decrease trim shrink
increase raise grow boost expand lift
save conserve spare preserve
pay spend shell_out
team group crew squad department
teams groups crews squads departments
company business firm organization vendor
companies businesses firms organizations vendors
customer client buyer user subscriber
customers clients buyers users subscribers
people folks individuals users
feature capability function tool option
features capabilities functions tools options
tool product platform solution service app
tools products platforms solutions services apps
option choice alternative pick candidate
options choices alternatives picks candidates
price cost fee rate charge
prices costs fees rates charges
plan tier package subscription edition
plans tiers packages subscriptions editions
support help assistance service
issue problem concern drawback snag
issues problems concerns drawbacks snags
benefit advantage upside plus perk strength
benefits advantages upsides pluses perks strengths
downside drawback weakness shortcoming limitation
downsides drawbacks weaknesses shortcomings limitations
review assessment evaluation write-up appraisal
reviews assessments evaluations write-ups appraisals
reviewers testers critics analysts experts
experience track_record history background
quality caliber standard grade
setup configuration onboarding installation
workflow process routine pipeline
workflows processes routines pipelines
report summary overview breakdown
reports summaries overviews breakdowns
data information figures numbers metrics
insight understanding visibility perspective
market space category segment industry
choice decision selection pick
way method approach route means
ways methods approaches routes means
goal aim objective target purpose
budget spending_limit price_range
quickly rapidly swiftly promptly speedily
easily readily effortlessly smoothly
especially particularly notably specifically
mainly mostly primarily largely chiefly
really truly genuinely
very quite highly extremely remarkably
slightly somewhat a_bit marginally
overall in_general broadly on_the_whole
currently presently right_now at_the_moment
probably likely most_likely
`;

/** Lower-case word → the words it may be replaced by (underscores in a group stand for spaces). */
export function synonymTable(): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const line of GROUPS.trim().split("\n")) {
    const words = line.trim().split(/\s+/).map((w) => w.replaceAll("_", " "));
    for (const w of words) if (!w.includes(" ") && !table.has(w)) table.set(w, words);
  }
  return table;
}
