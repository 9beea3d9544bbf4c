"""Ratings, tables, move analysis and the reports of tournaments, read from their game records.

Data flows one way. The game records of a tournament (:mod:`tournament`, which never imports this
package) are counted once into results (head-to-head statistics, joint ratings, SPRT, tables), and
each move can be judged against perfect play. A report gathers every figure, table and section it
shows, formatted where a number needs words, as plain data; rendering then lays that data out as
HTML, Markdown, CSV, PNG or terminal lines, and counts nothing. Several runs' reports can be set
side by side.
"""
