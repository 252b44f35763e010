"""A short research text shipped with the package for `motivgraph llm check --extraction`: written for
this purpose (it is no real paper), with the sentences a faithful extractor quotes for each element.

It is built like the opening of a typical paper — a task, a difficulty, prior remedies and their limits,
the contribution — so that every element of a triple is stated in one or two sentences an extractor can
copy. `EXPECTED` lists them per element; the check reports how many of them the extractor quoted."""

from __future__ import annotations

from motivgraph.ingest.models import Paper, Section

TITLE = "Calibrating Soil Moisture Sensors without Field Labels through Physics-Guided Self-Training"

ABSTRACT = (
    "Low-cost soil moisture sensors drift with temperature and soil type, so their readings must be calibrated "
    "before they can guide irrigation. Calibration normally needs laboratory measurements for every field, "
    "which few farms can afford. We propose a self-training method that calibrates sensors from unlabelled "
    "field readings by enforcing a water balance model as a constraint. On three farms the calibrated "
    "readings come within four percent of laboratory values."
)

INTRO = [
    "Irrigation scheduling decides when and how much to water a field from measurements of the water held "
    "in the soil. Good schedules save water and raise yields, and they depend on soil moisture readings that "
    "are accurate to a few percent.",
    "Capacitive sensors made this measurement cheap enough to place dozens of probes in a single field. "
    "However, the raw readings of these sensors depend on soil texture, salinity and temperature, and a "
    "sensor calibrated in one soil can be off by more than ten percent in another.",
    "The usual remedy is a gravimetric calibration, in which soil cores are taken next to each probe, dried "
    "in an oven and weighed. This procedure is slow and expensive, and it has to be repeated whenever a "
    "probe is moved, so most farms run their sensors with the factory curve.",
    "Learning a correction from data would avoid the laboratory, but a supervised model needs the very "
    "laboratory labels that are missing. Unsupervised drift correction, on the other hand, cannot tell a "
    "real change of soil water from a change of the sensor response.",
    "In this paper we calibrate sensors without field labels by self-training under a physical constraint. "
    "A simple water balance model predicts how soil water should change from rainfall, irrigation and "
    "evaporation, and the calibration curve of each probe is fitted so that its corrected readings follow "
    "this balance. The fitted curves then serve as pseudo-labels for a shared correction model that "
    "transfers to new probes.",
]

METHOD = (
    "The water balance model tracks the water stored in the root zone day by day. Each probe has a "
    "calibration curve with three parameters, and the parameters are chosen to minimise the disagreement "
    "between the corrected readings and the balance."
)

EXPECTED: dict[str, list[str]] = {
    "problem": [
        "Irrigation scheduling decides when and how much to water a field from measurements of the water held "
        "in the soil.",
    ],
    "challenge": [
        "However, the raw readings of these sensors depend on soil texture, salinity and temperature, and a "
        "sensor calibrated in one soil can be off by more than ten percent in another.",
        "This procedure is slow and expensive, and it has to be repeated whenever a probe is moved, so most "
        "farms run their sensors with the factory curve.",
        "Learning a correction from data would avoid the laboratory, but a supervised model needs the very "
        "laboratory labels that are missing.",
    ],
    "solution": [
        "In this paper we calibrate sensors without field labels by self-training under a physical constraint.",
        "We propose a self-training method that calibrates sensors from unlabelled field readings by enforcing "
        "a water balance model as a constraint.",
        "A simple water balance model predicts how soil water should change from rainfall, irrigation and "
        "evaporation, and the calibration curve of each probe is fitted so that its corrected readings follow "
        "this balance.",
    ],
}


def check_paper() -> Paper:
    """The shipped text as a parsed paper (no pages: it was never a PDF)."""
    return Paper(
        paper_id="motivgraph:extraction-check", title=TITLE, abstract=ABSTRACT, parser="check",
        sections=[Section(heading="Introduction", number="1", text="\n\n".join(INTRO), role="introduction"),
                  Section(heading="Method", number="2", text=METHOD, role="method")],
    )
