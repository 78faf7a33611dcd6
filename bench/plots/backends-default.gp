# The backends side by side at the default parameter set: signing and verification (µs) and key
# generation (ms), medians with p10-p90 error bars, log y.
load datadir.'/vars.gp'
set terminal pngcairo size 1400,700 font ",11" noenhanced
set output outdir.'/backends-default.png'
set datafile missing 'NaN'
set datafile columnheaders  # the first line names the columns
set multiplot layout 1,2 title 'Backends at the default parameter set: '.default_title font ",13"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set boxwidth 0.9
set logscale y
set grid ytics mytics
set xtics rotate by -35 font ",10"
set key top left
set title 'Signing and verification'
set ylabel 'time per operation (µs, log scale)'
plot datadir.'/default.dat' using 2:3:4:xtic(1) title 'sign', '' using 5:6:7 title 'verify'
set title 'Key generation (all cores)'
set ylabel 'time per key (ms, log scale)'
plot datadir.'/default.dat' using ($8/1000):($9/1000):($10/1000):xtic(1) title 'keygen' lc rgb '#7f3fbf'
unset multiplot
