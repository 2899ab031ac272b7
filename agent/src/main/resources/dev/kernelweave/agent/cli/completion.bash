# bash completion for kernelweave; load it with: source <(kernelweave completion)
_kernelweave() {
  local cur prev words cword
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  local command="${COMP_WORDS[1]}" sub="${COMP_WORDS[2]}"
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "inspect ptx selftest completion version --version --help" -- "$cur"))
    return
  fi
  case "$prev" in
    -o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "text json csv" -- "$cur")); return ;;
    -n|--lines|--from|--to|--since|--kernel|--seed|--programs|--streams|--mutant|--class-path) return ;;
  esac
  case "$command" in
    inspect)
      if [[ $COMP_CWORD -eq 2 ]]; then
        COMPREPLY=($(compgen -W "stats tail dag trace --help" -- "$cur"))
        return
      fi
      local options="--help"
      case "$sub" in
        stats) options="--since --format --help" ;;
        tail) options="-f -n --kernel --help" ;;
        dag) options="--from --to --dot --svg --png -o --help" ;;
        trace) options="-o --help" ;;
      esac
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
      else
        COMPREPLY=($(compgen -d -- "$cur"))
      fi
      ;;
    ptx) COMPREPLY=($(compgen -f -X '!*.ptx' -- "$cur") $(compgen -d -- "$cur")) ;;
    selftest) COMPREPLY=($(compgen -W "--sim --gpu --seed --programs --graphs --mutant --streams --class-path --help" -- "$cur")) ;;
  esac
}
complete -o filenames -F _kernelweave kernelweave
