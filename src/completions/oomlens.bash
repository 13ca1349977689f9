# bash completion for oomlens
_oomlens() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  case $prev in
    -f|--format) COMPREPLY=($(compgen -W "text json jsonl markdown github sarif gitlab html" -- "$cur")); return ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    --chip) COMPREPLY=($(compgen -W "v2 v3 v4 v5e v5p v6e tpu7x v7x v100-16 v100-32 a100-40 a100-80 h100 h200 b200" -- "$cur")); return ;;
    --fail-on) COMPREPLY=($(compgen -W "oom never oversize fragmentation leak program_eviction aggregate_usage unexpectedly_large_allocation" -- "$cur")); return ;;
    --rules) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    explain) COMPREPLY=($(compgen -W "E0100 E0101 E1000 E1001 oversize fragmentation leak program_eviction" -- "$cur")); return ;;
    rules) COMPREPLY=($(compgen -W "list check facts literals" -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "--format --color --rules --no-builtin-rules --chip --quiet --recursive --include --exclude --host-from-path --jobs --fail-on --max-incidents --help --version" -- "$cur"))
  elif [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "diff merge explain serve rules" -- "$cur") $(compgen -f -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _oomlens oomlens
