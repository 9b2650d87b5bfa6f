"""What people look at, drawn from results without computing any: how codes and scores
look (:mod:`.pegs`), the HTML a notebook shows (:mod:`.notebook`), plots
(:mod:`.plot`, matplotlib imported only when a picture is asked for), strategy trees
exported as JSON, text and Graphviz (:mod:`.tree`), and the explorer page
(:mod:`.explorer`, its HTML, style and script in ``web/``).

Nothing here imports a computing family: they hand their results down to be drawn.
"""
