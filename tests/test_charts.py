"""The SVG line chart: valid markup, points placed where the data says, text escaped."""

import xml.etree.ElementTree as ET

from scoring.engine.charts import Series, line_chart, nice_step

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str):
    return ET.fromstring(svg)


def coords(polyline) -> list[tuple[float, float]]:
    return [tuple(map(float, pair.split(","))) for pair in polyline.get("points").split()]


def y_ticks(root) -> list[float]:
    return [
        float(text.text)
        for text in root.findall(f".//{SVG}text")
        if text.get("class") == "chart-tick" and text.get("text-anchor") == "end"
    ]


def test_each_series_is_a_polyline_rising_with_its_values():
    svg = line_chart(
        [Series("Ann", [(0, 0), (1, 16), (2, 44), (3, 129)]), Series("Bob", [(0, 0), (1, 0), (2, 0), (3, 0)])],
        title="Running hand points",
        x_label="Hand",
        y_label="Points",
    )
    root = parse(svg)
    assert root.get("role") == "img" and root.get("aria-label") == "Running hand points"
    lines = root.findall(f".//{SVG}polyline")
    assert len(lines) == 2
    ann, bob = coords(lines[0]), coords(lines[1])
    # x grows left to right with the hand; SVG y grows downwards, so more points = smaller y.
    assert [x for x, _ in ann] == sorted(x for x, _ in ann)
    assert [y for _, y in ann] == sorted((y for _, y in ann), reverse=True)
    assert len({y for _, y in bob}) == 1 and bob[0][1] == ann[0][1]  # both start on the zero line
    # The y axis goes up in round steps past the top value: 129 over 5 steps -> steps of 50, up to 150.
    assert y_ticks(root) == [0, 50, 100, 150]
    assert "Ann" in svg and "Bob" in svg and "Hand" in svg


def test_text_is_escaped_and_styles_are_attributes_not_inline_css():
    svg = line_chart([Series("<script>alert(1)</script>", [(0, 1), (1, 2)])], title='A "title" & more')
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg
    assert "style=" not in svg  # the CSP forbids inline styles
    parse(svg)


def test_no_data_says_so_and_one_point_is_a_dot():
    empty = parse(line_chart([], title="Rating"))
    assert "No data yet" in "".join(empty.itertext())
    single = parse(line_chart([Series("Ann", [(0, 1500.0)])], title="Rating", y_from_zero=False))
    assert single.findall(f".//{SVG}polyline") == []
    assert len(single.findall(f".//{SVG}circle")) == 1


def test_ratings_axis_need_not_start_at_zero():
    root = parse(line_chart([Series("Ann", [(0, 1500), (1, 1516), (2, 1530.5)])], title="R", y_from_zero=False))
    assert y_ticks(root) == [1500, 1510, 1520, 1530, 1540]  # no 0 on a rating chart


def test_nice_steps():
    assert nice_step(129) == 50
    assert nice_step(100, 10) == 10
    assert nice_step(31) == 10
    assert nice_step(0) == 1
