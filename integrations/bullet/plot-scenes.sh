#!/usr/bin/env bash
# Pictures of mink-bullet-scenes' output (gnuplot): for each scene, its
# final state with Bullet's narrowphase and with mink's side by side
# (<scene>.png; the scene "ccd" also with Bullet's CCD off, on the left;
# the others also with mink reusing answers, on the right, when it ran),
# and one chart of every scene over time (scenes-time.png: the tracked top
# box's drift for the stacks, the kinetic energy of the pile, the spheres
# that went through the planks so far for "ccd"), every run on each panel.
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
  runs="bullet mink"
  titles="\"Bullet's narrowphase\" \"mink's narrowphase\""
  if [ -f "$dir/$s-bullet-noccd.wire" ]; then
    runs="bullet-noccd bullet mink"
    titles="\"Bullet, CCD off\" \"Bullet and its CCD\" \"mink and its CCD\""
  elif [ -f "$dir/$s-mink-reuse.wire" ]; then
    runs="bullet mink mink-reuse"
    titles="\"Bullet's narrowphase\" \"mink's narrowphase\" \"mink, reusing answers\""
  fi
  n=$(echo $runs | wc -w)
  gnuplot <<GP
set terminal $term
set output "$dir/$s.png"
set multiplot layout 1,$n title "$s after 10 s at 60 Hz (same bodies, same seed)"
unset border; unset tics; unset key; unset colorbox
set view 68, 28, 1.25
set view equal xyz
set xyplane at 0
kinds = "ground box hull capsule sphere"
colors = "#777777 #1f77b4 #d62728 #2ca02c #9467bd"
runs = "$runs"
array titles[$n] = [$(echo $titles | sed 's/" "/", "/g')]
do for [i=1:$n] {
  set title titles[i]
  splot for [k=0:4] "$dir/$s-".word(runs, i).".wire" index k using 1:2:3:4:5:6 with vectors nohead lw 1 lc rgb word(colors, k+1)
}
unset multiplot
GP
  echo "plot-scenes: $dir/$s.png"
done

# mink reusing answers (mink-bullet-scenes' third run), when it ran: column $2
reuse_line() {
  [ -f "$dir/$1-mink-reuse.series" ] || return 0
  echo ", '$dir/$1-mink-reuse.series' using 1:$2 with lines lw 2 dt 2 lc rgb '#2ca02c' title 'mink, reusing answers'"
}

gnuplot <<GP
set terminal $term
set output "$dir/scenes-time.png"
set multiplot layout 1,${#scenes[@]} title "Over time: Bullet's narrowphase against mink's (same world, same solver)"
set grid
set key top left
$(for s in "${scenes[@]}"; do
  if [ "$s" = ccd ]; then
    echo "set title 'ccd: spheres through the planks'; set xlabel 'time (s)'; set ylabel 'spheres (of those shot)'; set xrange [0:2]; set key center right"
    plot="plot"
    [ -f "$dir/$s-bullet-noccd.series" ] && plot="$plot '$dir/$s-bullet-noccd.series' using 1:8 with lines lw 2 lc rgb '#7f7f7f' title 'Bullet, CCD off',"
    echo "$plot '$dir/$s-bullet.series' using 1:8 with lines lw 2 lc rgb '#ff7f0e' title 'Bullet CCD', '$dir/$s-mink.series' using 1:8 with lines lw 2 dt 2 lc rgb '#1f77b4' title 'mink CCD'"
    echo "set autoscale x; set key top left"
  elif [ "$s" = pile ]; then
    echo "set title 'pile: kinetic energy'; set xlabel 'time (s)'; set ylabel 'J'; set logscale y"
    echo "plot '$dir/$s-bullet.series' using 1:5 with lines lw 2 lc rgb '#ff7f0e' title 'Bullet', '$dir/$s-mink.series' using 1:5 with lines lw 2 lc rgb '#1f77b4' title 'mink'$(reuse_line "$s" 5)"
    echo "unset logscale y"
  else
    echo "set title '$s: drift of the top box'; set xlabel 'time (s)'; set ylabel 'm (from where it settled at 1 s)'"
    echo "plot '$dir/$s-bullet.series' using 1:6 with lines lw 2 lc rgb '#ff7f0e' title 'Bullet', '$dir/$s-mink.series' using 1:6 with lines lw 2 lc rgb '#1f77b4' title 'mink'$(reuse_line "$s" 6)"
  fi
done)
unset multiplot
GP
echo "plot-scenes: $dir/scenes-time.png"
