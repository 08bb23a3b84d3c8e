#!/bin/bash
# S4+S5 (mid+narrow total_s) medians of 5 runs
B=/work/main/build-i6/bin/clash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
s45() { awk '/^  mid:|^  narrow:/{for(i=1;i<=NF;i++) if($i=="{total_s:"){gsub(",","",$(i+1)); t+=$(i+1)}} END{print t}' "$1"; }
fc() { awk '/^first_collision:/{f=1} f&&/seconds:/{for(i=1;i<=NF;i++){if($i=="mid:"){gsub(",","",$(i+1));m=$(i+1)} if($i=="narrow:"){gsub(",","",$(i+1));n=$(i+1)}} print m+n; exit}' "$1"; }
med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
A="--preset cluttered --objects 500 --seed 1 --steps 10 --quiet"
echo "## cluttered 500, S4+S5 seconds, median of 5; load $(cut -d' ' -f1-3 /proc/loadavg)"
for sch in dynamic stealing static-stride producer-consumer; do
  for t in 1 2; do
    v=$(for r in 1 2 3 4 5; do $B run $A --threads $t --schedule $sch --report /tmp/i6/m.yaml; s45 /tmp/i6/m.yaml; done | med)
    echo "threads $t $sch $v"
  done
done
for n in 1 2; do
  v=$(for r in 1 2 3 4 5; do mpirun -n $n $B run $A --threads 1 --schedule dynamic --report /tmp/i6/m.yaml; s45 /tmp/i6/m.yaml; done | med)
  echo "ranks $n dynamic $v"
done
echo "## fig43 collision step (45), S4+S5 seconds, median of 5"
for sch in static-stride producer-consumer dynamic stealing static-chunk; do
  for t in 1 2; do
    v=$(for r in 1 2 3 4 5; do $B run /work/main/bench/scenes/fig43.json --quiet --threads $t --schedule $sch --report /tmp/i6/f.yaml; fc /tmp/i6/f.yaml; done | med)
    echo "fig43 threads $t $sch $v"
  done
done
for n in 1 2 3; do
  v=$(for r in 1 2 3 4 5; do mpirun -n $n --oversubscribe $B run /work/main/bench/scenes/fig43.json --quiet --threads 1 --schedule static-stride --report /tmp/i6/f.yaml; fc /tmp/i6/f.yaml; done | med)
  echo "fig43 ranks $n static-stride $v"
done
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
