#!/usr/bin/env bash
# Pictures of mink-bullet-scenes' output (gnuplot): for each scene, its
# final state with Bullet's narrowphase and with mink's side by side
# (<scene>.png), and one chart of every scene over time (scenes-time.png:
# the tracked top box's drift for the stacks, the kinetic energy of the
# pile), both runs on each panel.
# Usage: integrations/bullet/plot-scenes.sh DIR   (DIR: mink-bullet-scenes --out DIR)
set -euo pipefail
dir=${1:?usage: plot-scenes.sh DIR}
command -v gnuplot >/dev/null || { echo "plot-scenes: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 1; }
term="pngcairo size 1400,640 font 'sans,11'"
gnuplot -e 'set terminal pngcairo' 2>/dev/null || term="png size 1400,640"

scenes=()
for f in "$dir"/*-bullet.wire; do
  [ -f "$f" ] || continue
  s=$(basename "$f" -bullet.wire)
  [ -f "$dir/$s-mink.wire" ] && scenes+=("$s")
done
[ ${#scenes[@]} -gt 0 ] || { echo "plot-scenes: no <scene>-bullet.wire and -mink.wire pairs in $dir" >&2; exit 1; }

for s in "${scenes[@]}"; do
  gnuplot <<GP
set terminal $term
set output "$dir/$s.png"
set multiplot layout 1,2 title "$s after 10 s at 60 Hz (same bodies, same seed)"
unset border; unset tics; unset key; unset colorbox
set view 68, 28, 1.25
set view equal xyz
set xyplane at 0
kinds = "ground box hull capsule sphere"
colors = "#777777 #1f77b4 #d62728 #2ca02c #9467bd"
do for [np in "bullet mink"] {
  set title (np eq "bullet" ? "Bullet's narrowphase" : "mink's narrowphase")
  splot for [k=0:4] "$dir/$s-".np.".wire" index k using 1:2:3:4:5:6 with vectors nohead lw 1 lc rgb word(colors, k+1)
}
unset multiplot
GP
  echo "plot-scenes: $dir/$s.png"
done

gnuplot <<GP
set terminal $term
set output "$dir/scenes-time.png"
set multiplot layout 1,${#scenes[@]} title "Over time: Bullet's narrowphase against mink's (same world, same solver)"
set grid
set key top left
$(for s in "${scenes[@]}"; do
  if [ "$s" = pile ]; then
    echo "set title 'pile: kinetic energy'; set xlabel 'time (s)'; set ylabel 'J'; set logscale y"
    echo "plot '$dir/$s-bullet.series' using 1:5 with lines lw 2 lc rgb '#ff7f0e' title 'Bullet', '$dir/$s-mink.series' using 1:5 with lines lw 2 lc rgb '#1f77b4' title 'mink'"
    echo "unset logscale y"
  else
    echo "set title '$s: drift of the top box'; set xlabel 'time (s)'; set ylabel 'm (from where it settled at 1 s)'"
    echo "plot '$dir/$s-bullet.series' using 1:6 with lines lw 2 lc rgb '#ff7f0e' title 'Bullet', '$dir/$s-mink.series' using 1:6 with lines lw 2 lc rgb '#1f77b4' title 'mink'"
  fi
done)
unset multiplot
GP
echo "plot-scenes: $dir/scenes-time.png"
