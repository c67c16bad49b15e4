"""A two-column research paper (A4, title and abstract across the page, body in two columns)."""

from __future__ import annotations

from app.ingest._mupdf import pymupdf

from .render import Flow, Style, new_document, put, save

FILE = "dockcast_paper.pdf"
W, H = 595.0, 842.0
M = 54.0
GAP = 18.0

TITLE = "DockCast: Forecasting Bike-Share Dock Shortages from Trip Histories and Weather"
AUTHORS = "Ines Varga, Tomasz Welland and Priya Raman"
AFFIL = "Urban Mobility Lab, University of Harlow Bay"

ABSTRACT = (
    "Empty and full docks are the most common complaint of bike-share riders. We present "
    "DockCast, a forecasting system that predicts, one hour ahead, which docks of a city network "
    "will run out of bikes or out of free slots. DockCast combines gradient-boosted regression "
    "trees with features derived from trip histories, the calendar and hourly weather "
    "observations. On 26 months of data from the Harlow Bay network, DockCast reduces the mean "
    "absolute error of dock occupancy forecasts by 18 percent compared with a seasonal baseline, "
    "and it detects 71 percent of shortage events at least 30 minutes before they happen. We "
    "release the feature pipeline and the trained models."
)

SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1 Introduction",
        [
            "Station-based bike sharing depends on bikes being where riders want them. Demand is "
            "asymmetric: in the morning, residential hills empty while docks near offices and the "
            "central station fill up, and the afternoon reverses the flow. Operators respond by "
            "rebalancing, moving bikes by van between docks, but a van crew can serve only a few "
            "docks per hour and needs to know where to go before the problem appears.",
            "Most operators still plan rebalancing from fixed rules, such as visiting every dock "
            "that was empty at the same time the previous week. Such rules ignore the weather, "
            "school holidays and events. This paper asks whether a forecasting model built from "
            "routinely collected data can tell a crew, an hour in advance, which docks will fail.",
            "Our contributions are threefold. First, we describe a feature pipeline that turns raw "
            "trip records into per-dock time series at ten-minute resolution. Second, we show that "
            "a gradient-boosted tree model with weather features outperforms both a seasonal "
            "baseline and a graph neural network on this task. Third, we report a four-week field "
            "trial in which rebalancing crews followed DockCast alerts.",
        ],
    ),
    (
        "2 Related Work",
        [
            "Early studies of bike-share demand modelled station counts with Poisson regression on "
            "calendar variables. Later work clustered stations by usage profile and forecast each "
            "cluster separately, which helps sparse stations but blurs local effects such as a "
            "closed street. Graph neural networks treat the network as a graph whose edges are "
            "frequent trips and have reported gains in large cities with dense networks.",
            "Weather is known to suppress cycling, but published effect sizes vary widely between "
            "cities. Several authors note that the timing of rain matters more than the daily total: "
            "a shower at the evening peak removes more trips than a wet night. We therefore use "
            "hourly rather than daily weather observations.",
        ],
    ),
    (
        "3 Data",
        [
            "The Harlow Bay network operated 412 docks with 5,300 bikes during the study period, "
            "from March 2022 to April 2024. The operator provided every trip record, 9.3 million "
            "trips in total, each with start and end dock, start and end time and a bike "
            "identifier. Electric bikes were introduced in 2023 but are parked at the same docks; "
            "we excluded their trips because their battery swaps were recorded as trips.",
            "Dock occupancy was reconstructed by replaying trips and the operator's rebalancing "
            "log, then checked against the docks' own status feed, which was archived every five "
            "minutes. Where the two disagreed by more than two bikes for over an hour, usually "
            "because of a faulty dock sensor, we dropped the affected day for that dock; this "
            "removed 1.6 percent of dock-days.",
            "Hourly weather came from the airport station of the national meteorological service, "
            "eleven kilometres from the city centre: temperature, precipitation, wind speed and "
            "a present-weather code. Calendar features include public and school holidays and a "
            "list of 64 large events, such as concerts and football matches, supplied by the city.",
            "We call a dock short when it holds fewer than two bikes or fewer than two free slots. "
            "Over the whole period, 7.9 percent of dock-hours were short, but the share was four "
            "times higher at the ten busiest docks.",
        ],
    ),
    (
        "4 Method",
        [
            "For each dock and each ten-minute step we predict the occupancy sixty minutes ahead. "
            "The model sees the current occupancy, the occupancy at the same time one day and one "
            "week earlier, the net flow of the past thirty minutes, trips currently in progress "
            "towards the dock, calendar indicators and the weather observation and forecast for the "
            "next hour.",
            "We train one LightGBM model for the whole network rather than one per dock, with the "
            "dock identifier and the dock's capacity as features. A shared model learns from busy "
            "docks and transfers that knowledge to quiet ones. Hyperparameters were chosen on the "
            "last three months of 2023 and frozen before the test period.",
            "A forecast becomes an alert when the predicted occupancy crosses the shortage threshold "
            "with a predicted probability above 0.6, obtained from quantile regression. The "
            "threshold trades missed shortages against wasted van trips; operators can change it "
            "per district.",
            "Training the full model takes eleven minutes on a four-core laptop, and a forecast for "
            "all docks takes under two seconds, so the system can run every ten minutes on modest "
            "hardware.",
        ],
    ),
    (
        "5 Experiments",
        [
            "The test period covers January to April 2024. We compare DockCast with a seasonal "
            "baseline that predicts the average occupancy of the same weekday and time over the "
            "previous four weeks, and with a graph neural network that uses the same inputs.",
            "DockCast reached a mean absolute error of 1.84 bikes, against 2.24 for the seasonal "
            "baseline and 1.97 for the graph network. It detected 71 percent of shortage events at "
            "least thirty minutes in advance, with one false alarm for every three correct alerts.",
            "An ablation shows where the gains come from. Without weather features the error rose "
            "by 7.4 percent, and almost all of that increase fell on rainy afternoons. Removing the "
            "trips in progress hurt more than any other single feature group, raising the error by "
            "11 percent, because a dock near the station can fill within minutes of a train "
            "arriving.",
            "Rain had a large and uneven effect. An hour with more than one millimetre of rain "
            "reduced departures by 23 percent on average, but by 41 percent at hilltop docks, "
            "where riders start uphill journeys on foot instead.",
        ],
    ),
    (
        "6 Field Trial",
        [
            "During four weeks in May 2024, two of the operator's four rebalancing crews received "
            "DockCast alerts on a tablet while the other two kept the fixed weekly rules. Crews "
            "were swapped after two weeks to balance districts.",
            "Docks served by alert-guided crews were short for 29 percent fewer hours than docks "
            "served by rule-guided crews, while the distance driven by the vans barely changed. "
            "Crews reported that alerts for events were the most useful, since the fixed rules "
            "had no notion of a concert ending.",
        ],
    ),
    (
        "7 Limitations",
        [
            "Our data come from a single mid-sized city with a mild climate, and snow fell on only "
            "three days of the study period, so the weather effects we estimate may not transfer "
            "to colder cities. The model also assumes that the rebalancing log is complete; crews "
            "occasionally moved bikes without logging them, which appears to the model as "
            "unexplained flow.",
            "Finally, DockCast forecasts docks independently and does not plan routes. Turning "
            "alerts into an efficient van route is a separate optimisation problem that we leave "
            "to future work.",
        ],
    ),
    (
        "8 Conclusion",
        [
            "Routinely collected trip and weather data are enough to warn rebalancing crews an hour "
            "before most dock shortages. A single gradient-boosted model for the whole network was "
            "more accurate than a graph neural network and far cheaper to train. The code and the "
            "anonymised features are available from the Urban Mobility Lab.",
        ],
    ),
    (
        "References",
        [
            "[1] A. Borgnat et al. Shared bicycles in a city: a signal processing and data analysis "
            "perspective. Advances in Complex Systems, 2011.",
            "[2] J. Froehlich, J. Neumann and N. Oliver. Sensing and predicting the pulse of the "
            "city through shared bicycling. IJCAI, 2009.",
            "[3] G. Ke et al. LightGBM: a highly efficient gradient boosting decision tree. "
            "NeurIPS, 2017.",
            "[4] R. Koenker. Quantile Regression. Cambridge University Press, 2005.",
        ],
    ),
]

BODY = Style("tiro", 9.5, 12.0, after=4.0)
HEAD = Style("tibo", 10.5, 13.0, before=6.0, after=3.0)
REF = Style("tiro", 8.5, 10.5, after=2.0)


def _columns(pno: int) -> list[pymupdf.Rect]:
    col_w = (W - 2 * M - GAP) / 2
    return [
        pymupdf.Rect(M, 64, M + col_w, H - 60),
        pymupdf.Rect(M + col_w + GAP, 64, W - M, H - 60),
    ]


def _full(pno: int) -> list[pymupdf.Rect]:
    return [pymupdf.Rect(M, 64, W - M, H - 60)]


def _furniture(page: pymupdf.Page, n: int) -> None:
    if n > 1:
        put(page, M, 40, "DockCast: forecasting bike-share dock shortages", Style("tiit", 8))
    put(page, W / 2 - 4, H - 30, str(n), Style("tiro", 8))


def build(path: str) -> None:
    doc = new_document(TITLE, AUTHORS, "Bike-share demand forecasting")
    flow = Flow(doc, (W, H), _full, _furniture)
    flow.new_page()
    flow.space(20)
    flow.para(TITLE, Style("tibo", 16, 20, after=8))
    flow.para(AUTHORS, Style("tiro", 11, 14, after=2))
    flow.para(AFFIL, Style("tiit", 10, 13, after=12))
    flow.para("Abstract", Style("tibo", 10, 13, after=2))
    flow.para(ABSTRACT, Style("tiit", 9.5, 12, after=14))
    flow.start_columns_here(_columns)
    for heading, paras in SECTIONS:
        flow.heading(heading, HEAD)
        for p in paras:
            flow.para(p, REF if heading == "References" else BODY)
    save(doc, path)
