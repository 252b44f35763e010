"""Text bank of the held-out parser set: invented research topics, people, affiliations and references.

Every sentence here was written for this set (none is taken from the shared corpus or from the source
papers), so a parser tuned on the shared corpus has never seen any of it. `generate.py` typesets these texts
in the real publisher classes of Debian's TeX Live; the truth of each PDF is known from the source.

Topics 0-5 feed the FROZEN split, 6-11 the DEV split (see generate.py): the two never share a paragraph.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TopicText:
    title: str
    long_title: str  # a two- or three-line variant for the long-title layouts
    abstract: str
    intro: tuple[str, ...]
    thing: str  # what the paper builds, used in the shared body paragraphs
    data: str  # what it is measured on
    structured: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (label, text) of a structured abstract


TOPICS: tuple[TopicText, ...] = (
    # ---- FROZEN topics (0-5) ----
    TopicText(
        title="Adaptive Sampling Schedules for Sparse River Sensor Networks",
        long_title=("Adaptive Sampling Schedules for Sparse River Sensor Networks under Seasonal Flow "
                    "Regimes and Intermittent Solar Power Budgets"),
        abstract=(
            "Water agencies place a few dozen low-cost sensors along rivers that span hundreds of kilometres, and "
            "each sensor must decide how often to sample turbidity and dissolved oxygen while its battery is "
            "recharged by an unreliable solar panel. Fixed schedules either waste energy in calm weeks or miss the "
            "first hours of a flood pulse. We formulate the choice of sampling interval as a budgeted control "
            "problem in which upstream readings inform downstream sensors, and we derive a schedule that shares "
            "energy across the network through a lightweight message exchange. On four years of readings from "
            "two catchments the adaptive schedule captures eighty-seven percent of flood onsets within one hour "
            "while using a third less energy than the best fixed interval."
        ),
        intro=(
            "River monitoring has moved from manual grab samples to networks of unattended probes. The probes are "
            "cheap, but the places where they matter most are remote, shaded by trees and visited by technicians "
            "only a few times per year, so energy rather than hardware limits what they observe.",
            "The interesting events are rare and short. A storm in the headwaters raises turbidity downstream "
            "within hours, and a schedule tuned for the dry season samples too rarely to see it. Conversely, a "
            "schedule tuned for floods drains the battery during the long quiet stretches between them.",
        ),
        thing="adaptive schedule",
        data="the two river catchments",
    ),
    TopicText(
        title="Contrastive Pretraining for Anomaly Detection in Mixed-Type Tabular Data",
        long_title=("Contrastive Pretraining for Anomaly Detection in Mixed-Type Tabular Data with Missing "
                    "Values, Rare Categories and Drifting Feature Distributions"),
        abstract=(
            "Audit teams screen millions of ledger rows for the handful that deserve a second look, but the rows "
            "mix numbers, dates, free-text memos and categorical codes with thousands of rare values. Detectors "
            "trained on numeric features alone ignore most of this signal, and labelled anomalies are too scarce "
            "for supervised training. We pretrain a row encoder with a contrastive objective whose positive pairs "
            "are produced by corrupting a random subset of columns in a type-aware way, and we score a row by how "
            "poorly its corrupted views agree. Across seven public tables and one private ledger the method "
            "raises the area under the precision-recall curve by an average of eleven points over isolation "
            "forests and autoencoders."
        ),
        intro=(
            "Tabular records are the most common form of data in organisations, and the search for unusual "
            "records among them is one of the oldest uses of statistics in business. Yet the tables that matter in "
            "practice are messy: columns of different types, missing cells and categories seen only once.",
            "Most anomaly detectors were designed for continuous vectors. Applying them to mixed tables requires "
            "an encoding step that either discards the rare categories or inflates the dimension until distances "
            "stop meaning anything, and both choices hide exactly the records an auditor wants to find.",
        ),
        thing="type-aware contrastive encoder",
        data="the seven public tables",
    ),
    TopicText(
        title="Fair Scheduling of Batch Jobs on Heterogeneous Accelerator Clusters",
        long_title=("Fair Scheduling of Batch Jobs on Heterogeneous Accelerator Clusters When Job Runtimes "
                    "Depend on the Device Generation"),
        abstract=(
            "Shared research clusters now hold several generations of accelerators, and a job may run three times "
            "faster on the newest devices than on the oldest. Schedulers that allocate device counts without "
            "regard to generation treat users unfairly, since two users with equal shares receive very different "
            "amounts of useful work. We define fairness in terms of normalised progress rather than device time "
            "and present a scheduler that estimates each job's speed on each generation from short profiling "
            "runs. A trace-driven simulation of eighteen months of cluster logs and a deployment on a "
            "sixty-four-device testbed show that the scheduler halves the spread of normalised progress across "
            "users while keeping total throughput within two percent of a throughput-maximising baseline."
        ),
        intro=(
            "Universities rarely replace a cluster at once. New accelerators are added each budget year, and the "
            "old ones remain in service until they fail, so a typical shared cluster contains devices whose speeds "
            "differ by a factor of three or more.",
            "Existing fair-share policies count device hours. When devices differ, a device hour on an old card is "
            "worth far less than one on a new card, and users who happen to be placed on old hardware fall behind "
            "without any visible violation of their share.",
        ),
        thing="progress-normalised scheduler",
        data="the cluster trace",
    ),
    TopicText(
        title="Anisotropic Thermal Transport in Layered Oxide Thin Films",
        long_title=("Anisotropic Thermal Transport in Layered Oxide Thin Films Grown by Pulsed Laser Deposition "
                    "on Lattice-Mismatched Substrates"),
        abstract=(
            "Layered oxides conduct heat very differently within and across their planes, which matters for "
            "devices that must shed heat through a thin film into a substrate. We measure the in-plane and "
            "cross-plane thermal conductivity of films between twenty and two hundred nanometres thick using "
            "time-domain thermoreflectance with two beam offsets. The cross-plane conductivity falls by a factor "
            "of four as the film thins, while the in-plane value changes by less than twenty percent. A "
            "Boltzmann transport model with boundary scattering at interfaces reproduces both trends when phonon "
            "mean free paths along the stacking axis are limited by stacking faults observed in electron "
            "microscopy."
        ),
        intro=(
            "Thin oxide films appear in memory cells, sensors and thermoelectric modules, and in each of them heat "
            "must leave the active layer quickly. The layered crystal structure that gives these oxides their "
            "electronic properties also makes their thermal conductivity strongly direction dependent.",
            "Measurements on bulk crystals report an anisotropy ratio near three, but films grown on mismatched "
            "substrates contain defects that bulk crystals lack, and it is not known how strongly those defects "
            "suppress transport in each direction.",
        ),
        thing="two-offset thermoreflectance method",
        data="the film series",
    ),
    TopicText(
        title="Cost-Based Query Rewriting for Federated SQL Engines",
        long_title=("Cost-Based Query Rewriting for Federated SQL Engines Spanning Relational Stores, Object "
                    "Storage and Remote Web Services"),
        abstract=(
            "Federated engines answer one SQL query from several sources, yet their optimisers assume that every "
            "source behaves like a local table. When a source is a web service with rate limits or an object "
            "store with slow listing, plans that look cheap become the slowest possible. We extend the cost model "
            "with per-source latency and request quotas learned online, and add rewrite rules that push "
            "aggregation and semi-joins toward sources that can evaluate them. On a benchmark of ninety-nine "
            "queries over five source types, the rewritten plans finish a median of four times faster and never "
            "exceed the request quota of any source."
        ),
        intro=(
            "Analysts increasingly query data where it lives instead of copying it into one warehouse. Federated "
            "engines make this convenient by presenting many sources as tables, but convenience hides large "
            "differences in how those sources answer requests.",
            "A relational store can filter and join close to the data, an object store can only list and read "
            "whole files, and a web service may allow a few hundred calls per minute. Optimisers that ignore these "
            "differences produce plans that are correct but impractically slow.",
        ),
        thing="source-aware rewriter",
        data="the federated benchmark",
    ),
    TopicText(
        title="Keyword Spotting on Microcontrollers with Learned Filterbanks",
        long_title=("Keyword Spotting on Microcontrollers with Learned Filterbanks and Eight-Bit Integer "
                    "Arithmetic for Always-On Voice Interfaces"),
        abstract=(
            "Always-on voice interfaces must recognise a few keywords on microcontrollers with kilobytes of memory "
            "and milliwatts of power. Most compact models still compute a fixed mel filterbank, which spends a "
            "large share of the budget on frequency bands that carry little information for the keywords at "
            "hand. We learn the filterbank jointly with a small convolutional classifier under an integer "
            "arithmetic constraint, so that the whole pipeline runs in eight-bit fixed point. On two keyword "
            "datasets the learned front end reduces the multiply count by forty percent at equal accuracy, and "
            "the deployed model draws under two milliwatts on a commodity board."
        ),
        intro=(
            "Wake words and short commands are now expected on devices far smaller than phones: light switches, "
            "hearing aids and toys. These devices run on microcontrollers whose memory is measured in kilobytes "
            "and whose batteries must last for months.",
            "The acoustic front end is usually fixed in advance and borrowed from speech recognition. It was "
            "never designed for a vocabulary of ten words, and on microcontrollers it can consume as much energy "
            "as the classifier that follows it.",
        ),
        thing="learned integer filterbank",
        data="the two keyword datasets",
    ),
    # ---- DEV topics (6-11) ----
    TopicText(
        title="Graph-Based Recommendation for Public Library Lending",
        long_title=("Graph-Based Recommendation for Public Library Lending Networks with Sparse Borrowing "
                    "Histories and Privacy-Preserving Patron Records"),
        abstract=(
            "Public libraries hold rich catalogues but know little about each patron, since many borrow only a "
            "handful of items per year and privacy rules limit how long loans may be kept. Recommenders built for "
            "online shops assume dense histories and fail in this setting. We build a graph that links items "
            "through shared subjects, series and co-borrowing counts aggregated over branches, and recommend by "
            "short random walks that never store an individual's history beyond the current session. A study in "
            "three regional library systems finds that patrons accept a recommended item twice as often as one "
            "from the staff picks shelf."
        ),
        intro=(
            "Libraries lend books, recordings and tools to people who often visit only a few times a year. Staff "
            "know their collections well but cannot advise every visitor, and catalogue search helps only those "
            "who already know what they want.",
            "Online recommenders rely on long personal histories. Libraries deliberately do not keep such "
            "histories, and the few loans they see per patron are too sparse for collaborative filtering to find "
            "meaningful neighbours.",
        ),
        thing="session-only random-walk recommender",
        data="the three library systems",
    ),
    TopicText(
        title="Lattice Simulations of Polymer Folding under Cylindrical Confinement",
        long_title=("Lattice Simulations of Polymer Folding under Cylindrical Confinement and Their "
                    "Consequences for Translocation Through Nanopores"),
        abstract=(
            "Polymers threaded through narrow channels fold differently than in free solution, which affects how "
            "quickly they pass through nanopores used for sequencing. We simulate self-avoiding chains with an "
            "attractive contact energy on a cubic lattice inside cylinders of varying radius, using a pruned and "
            "enriched sampling scheme that reaches chains of two thousand monomers. Below a radius of about four "
            "lattice units the collapse transition shifts to lower temperature and the folded state becomes a "
            "series of helical segments rather than a compact globule. The predicted translocation times agree "
            "with the scaling observed in recent experiments."
        ),
        intro=(
            "Confinement is the normal state of many biological and synthetic polymers: DNA in a viral capsid, "
            "proteins in a ribosome exit tunnel and synthetic chains threaded through solid-state nanopores.",
            "The folding of a free chain is well understood, but confinement introduces a second length scale. "
            "When the channel radius approaches the size of a folded chain, the competition between contact "
            "energy and the entropy lost to the walls changes both the transition and the folded shape.",
        ),
        thing="pruned-enriched sampler",
        data="the simulated chains",
    ),
    TopicText(
        title="Verifying Upgrade Patterns in Smart Contract Proxies",
        long_title=("Verifying Upgrade Patterns in Smart Contract Proxies: Storage Layout Compatibility, "
                    "Initialiser Safety and Access Control"),
        abstract=(
            "Smart contracts are immutable, so developers make them upgradeable by placing a proxy in front of "
            "replaceable logic contracts. Each upgrade must keep the storage layout compatible and must not expose "
            "an unprotected initialiser, and mistakes have cost users large sums. We encode the three common proxy "
            "patterns as state machines and check, for each pair of versions, that layouts remain compatible and "
            "that only authorised accounts reach the upgrade function. Applied to four thousand deployed proxies, "
            "the checker reports ninety-one unsafe upgrades, of which seventy-eight were confirmed by manual "
            "review."
        ),
        intro=(
            "Code on a public blockchain cannot be changed after deployment. To fix bugs and add features, "
            "developers split a contract into a small proxy that holds the state and a logic contract that the "
            "proxy calls and that can be replaced.",
            "Upgrades look routine but are easy to get wrong. A new version that reorders its variables silently "
            "reinterprets stored values, and an initialiser left open lets anyone take ownership of the proxy.",
        ),
        thing="proxy upgrade checker",
        data="the deployed proxies",
    ),
    TopicText(
        title="Morphological Tagging for Low-Resource Agglutinative Languages",
        long_title=("Morphological Tagging for Low-Resource Agglutinative Languages via Cross-Lingual Transfer "
                    "from Related High-Resource Languages"),
        abstract=(
            "Agglutinative languages attach long chains of suffixes to a stem, so a single word carries what "
            "English spreads across a phrase. Taggers for such languages need large annotated corpora, which exist "
            "for very few of them. We transfer a character-level tagger from a related language with abundant "
            "annotation and adapt it with a few hundred sentences and a list of known suffixes. For six "
            "low-resource languages the adapted tagger recovers full morphological analyses for seventy to "
            "eighty-five percent of tokens, compared with forty to sixty percent when training from scratch on the "
            "same sentences."
        ),
        intro=(
            "Morphological analysis is the first step of most language technology for languages in which words "
            "are built from many pieces. Without it, search, spelling correction and translation treat every "
            "inflected form as a separate word.",
            "Annotated corpora are expensive to build, and the communities that speak low-resource languages "
            "rarely have the funding to build them. Related languages, however, often share suffixes and "
            "ordering constraints that a model can learn from.",
        ),
        thing="cross-lingual character tagger",
        data="the six languages",
    ),
    TopicText(
        title="Energy-Aware Routing in Delay-Tolerant Drone Networks",
        long_title=("Energy-Aware Routing in Delay-Tolerant Drone Networks for Disaster Response with "
                    "Intermittent Ground Links"),
        abstract=(
            "After an earthquake, ground networks fail and rescue teams rely on drones to ferry messages between "
            "shelters. Each drone carries messages until it meets another drone or a shelter, but its battery "
            "limits both flight time and radio use. Existing delay-tolerant routing protocols replicate messages "
            "freely and exhaust batteries within hours. We route by estimating, from shared flight plans, the "
            "probability that each neighbour reaches the destination before its battery is spent. In simulations "
            "of three city maps the protocol delivers ninety-four percent of messages while extending the "
            "network's useful life by a factor of one and a half."
        ),
        intro=(
            "Disasters destroy the infrastructure that coordination depends on. In the first days after a large "
            "earthquake, shelters may have power but no connectivity, and relief workers carry messages on foot.",
            "Drones can carry messages faster, but they meet each other only occasionally and must return to "
            "charge. Routing in such a network must decide which drone should carry which message, knowing that "
            "every transmission and every detour shortens the drone's remaining flight.",
        ),
        thing="battery-aware forwarding rule",
        data="the three city maps",
    ),
    TopicText(
        title="Causal Discovery from Irregularly Sampled Clinical Records",
        long_title=("Causal Discovery from Irregularly Sampled Clinical Records with Informative Missingness "
                    "and Time-Varying Treatments"),
        abstract="",
        structured=(
            ("Objectives", "Hospitals record laboratory values at irregular times chosen by clinicians, and the "
             "timing itself reflects how sick a patient is. We aim to recover causal relations among laboratory "
             "values and treatments despite this informative sampling."),
            ("Methods", "We adapt a constraint-based discovery algorithm to continuous-time observations by "
             "modelling each measurement time as a variable, and we test conditional independence with a kernel "
             "statistic that accounts for irregular spacing."),
            ("Results", "On simulated cohorts with known structure the method recovers eighty percent of true "
             "edges at a false discovery rate of ten percent, and on records of twelve thousand intensive care "
             "stays it finds relations that agree with established physiology."),
            ("Conclusions", "Treating measurement times as variables makes causal discovery feasible on routine "
             "clinical records without imputing values to a regular grid."),
        ),
        intro=(
            "Electronic health records contain years of measurements for millions of patients, and clinicians "
            "hope to learn from them how treatments affect physiology. Randomised trials answer such questions "
            "cleanly but are slow and cannot cover every combination of conditions.",
            "Observational records are not collected for research. A clinician orders a test when worried, so a "
            "dense series of measurements signals a sick patient, and methods that assume regular sampling "
            "mistake this signal for the physiology itself.",
        ),
        thing="time-aware discovery algorithm",
        data="the intensive care records",
    ),
)

# Shared body paragraphs: {thing} and {data} are filled from the topic. Enough to run a paper past page 3.
BODY = {
    "related": (
        "Earlier work addressed parts of this problem in isolation. Several studies proposed heuristics that "
        "perform well in one setting but require retuning in another, and a second line of work derived "
        "guarantees under assumptions that rarely hold in deployed systems. Our approach sits between the two: "
        "it keeps a simple structure that practitioners can inspect while adapting to the conditions it "
        "observes.",
        "Closest to our work are methods that learn a policy offline and apply it unchanged. Such methods are "
        "attractive because they add no cost at run time, yet they cannot react when conditions drift away from "
        "those seen during training, which is common in the settings we study.",
    ),
    "method": (
        "The {thing} consists of three parts. The first estimates the quantities that the decision depends on "
        "from recent observations, the second turns these estimates into a decision under an explicit budget, "
        "and the third records the outcome so that later estimates improve. Each part can be replaced without "
        "changing the others.",
        "We chose estimators with closed-form updates so that the {thing} runs on modest hardware. The budget is "
        "enforced as a hard constraint rather than a penalty, because operators told us that occasional large "
        "violations are worse than a small loss of quality on average.",
        "Two parameters control the behaviour of the {thing}: the length of the observation window and the "
        "share of the budget held in reserve. We fix both on a separate tuning set and keep them unchanged in "
        "every experiment reported below.",
    ),
    "experiments": (
        "We evaluate the {thing} on {data} and compare it with the strongest baselines we could reproduce. All "
        "methods receive the same inputs and the same budget, and we repeat every experiment with five random "
        "seeds to report means and standard deviations.",
        "The {thing} improves on every baseline in the main comparison. The gain is largest when conditions "
        "change quickly, where fixed policies fall behind, and smallest in stable periods, where all methods "
        "perform similarly. Ablations show that removing the reserve budget causes most of the remaining "
        "failures.",
        "Running time is dominated by the estimation step. On {data} one decision takes well under a second on a "
        "single core, which is negligible compared with the interval between decisions in practice.",
    ),
    "conclusion": (
        "We presented the {thing} and showed on {data} that it improves on fixed and learned baselines while "
        "respecting a strict budget. Future work will study settings in which several operators share one "
        "budget and must coordinate their decisions.",
    ),
}

# People: names from many countries, including surnames that are also common words ("Way", "Mark", "Young").
PEOPLE: tuple[str, ...] = (
    "Amara Okonkwo", "Henrik Lindqvist", "Mei-Ling Chou", "Rafael Ortega", "Priya Raman", "Tomasz Wiśniewski",
    "Jonah Way", "Sofia Marchetti", "Kwame Mensah", "Elena Petrova", "Diego Fernández", "Aiko Tanaka",
    "Lucas Moreau", "Fatima Al-Sayed", "Oliver Brennan", "Ngozi Adeyemi", "Mateus Carvalho", "Hana Novák",
    "Samuel Young", "Ingrid Solberg", "Ravi Mark", "Chloé Lefèvre", "Yusuf Demir", "Grace Hill",
    "Andrés Villalobos", "Katarzyna Nowak", "Benedikt Huber", "Leilani Kahale", "Minh Tran", "Isabel Murray",
    "Pedro Alves", "Zeynep Kaya", "Arjun Nair", "Clara Weiß", "Liam O'Connor", "Marisol Quintero",
)

# Affiliations: (institution, street-free address) across countries and US states other than WA/CA/NY.
AFFILIATIONS: tuple[tuple[str, str], ...] = (
    ("Bell Research Laboratories", "Murray Hill, NJ, USA"),
    ("Department of Civil Engineering, Lone Star State University", "Austin, TX 78712, USA"),
    ("School of Computing, Great Lakes Institute of Technology", "Ann Arbor, MI, USA"),
    ("Department of Physics, Bay State University", "Cambridge, MA 02139, USA"),
    ("Center for Data Systems", "Urbana, IL 61801, USA"),
    ("Cascade Computing Lab", "Portland, OR, USA"),
    ("Institut für Informatik, Technische Hochschule Nordstadt", "Hamburg, Germany"),
    ("Laboratoire d'Informatique, Université de la Loire", "Nantes, France"),
    ("Departamento de Ingeniería, Universidad del Pacífico", "Valparaíso, Chile"),
    ("Graduate School of Engineering, Kansai Science University", "Osaka, Japan"),
    ("Faculty of Science, University of the Highveld", "Pretoria, South Africa"),
    ("Department of Electrical Engineering", "Atlanta, GA 30332, USA"),
    ("Mountain West Research Institute", "Boulder, CO, USA"),
    ("School of Informatics, Northern Fjord University", "Bergen, Norway"),
    ("Instituto de Física, Universidade do Planalto", "Brasília, Brazil"),
    ("Research Division, Delta Analytics Inc.", "Raleigh, NC 27606, USA"),
)

VENUES = (
    "Proceedings of the International Conference on Data Engineering", "Journal of Applied Physics",
    "ACM Transactions on Sensor Networks", "IEEE Transactions on Parallel and Distributed Systems",
    "Proceedings of the Annual Meeting of the Association for Computational Linguistics",
    "Physical Review B", "Water Resources Research", "Proceedings of the USENIX Annual Technical Conference",
)

REF_TITLES = (
    "A survey of adaptive methods for resource-constrained systems",
    "Budgeted decisions under uncertainty in distributed settings",
    "Learning to schedule with partial observations",
    "Robust estimation for drifting data streams",
    "Empirical limits of fixed policies in field deployments",
    "Scaling laws for small models on embedded hardware",
    "Interpretable baselines that are hard to beat",
    "Measurement error and its consequences for downstream inference",
    "Coordination of shared budgets among independent operators",
    "On the reproducibility of systems experiments",
    "Transfer between related tasks with few labelled examples",
    "Boundary effects in finite systems",
    "Cost models for heterogeneous execution environments",
    "Privacy-preserving aggregation of usage statistics",
    "Stochastic models of intermittent connectivity",
    "Fast approximate inference for structured models",
    "Benchmarks that reflect operational constraints",
    "Energy accounting on battery-powered devices",
    "A field guide to evaluation pitfalls",
    "Self-tuning systems revisited",
    "Lightweight protocols for constrained networks",
    "Graphs as a lens on sparse interaction data",
)

# Non-English front matter: (language for babel, abstract label, title, abstract, first heading, first paragraph).
FOREIGN = {
    "german": (
        "Zusammenfassung",
        "Adaptive Wartungsplanung für kommunale Wasserpumpen",
        "Kommunale Wasserpumpen fallen selten aus, aber ein Ausfall trifft viele Haushalte zugleich. Wir "
        "schätzen aus Betriebsdaten die Ausfallwahrscheinlichkeit jeder Pumpe und planen Wartungen so, dass das "
        "erwartete Risiko bei festem Personalbudget möglichst klein bleibt. In zwei Stadtwerken senkt die "
        "Planung die Zahl ungeplanter Stillstände um ein Drittel.",
        "Einleitung",
        "Die Wasserversorgung einer Stadt hängt an wenigen hundert Pumpen, deren Zustand nur bei Inspektionen "
        "sichtbar wird. Wartung nach festem Kalender verschwendet Einsätze an gesunden Pumpen und übersieht "
        "Pumpen, die schneller verschleißen als erwartet.",
    ),
    "french": (
        "Résumé",
        "Prévision de la demande de vélos en libre-service par réseaux de graphes",
        "Les systèmes de vélos en libre-service doivent redistribuer les vélos entre les stations avant que "
        "celles-ci ne se vident. Nous prévoyons la demande de chaque station à l'aide d'un réseau de graphes qui "
        "relie les stations selon les trajets observés, et nous montrons sur deux villes que la prévision réduit "
        "de moitié les stations vides aux heures de pointe.",
        "Introduction",
        "Le vélo en libre-service est devenu un mode de transport courant dans les grandes villes. Sa qualité "
        "dépend de la disponibilité des vélos au bon endroit et au bon moment, ce qui exige une redistribution "
        "fondée sur une prévision fiable de la demande.",
    ),
    "spanish": (
        "Resumen",
        "Detección temprana de plagas en viñedos mediante trampas con cámara",
        "Las plagas de la vid se detectan tarde porque las trampas se revisan a mano una vez por semana. "
        "Proponemos trampas con cámara de bajo costo que cuentan insectos con un clasificador ligero y envían un "
        "aviso cuando el recuento crece. En tres viñedos el sistema anticipa los brotes en cinco días de media.",
        "Introducción",
        "La viticultura depende de tratamientos aplicados en el momento justo. Un tratamiento tardío deja que la "
        "plaga se extienda, y uno prematuro gasta producto y daña la fauna útil del viñedo.",
    ),
}
