# bash completion for marrow (installed as share/bash-completion/completions/marrow).
# Commands and each command's options are read from the program's own
# --help at completion time, so they never go out of date; arguments
# complete to the files a command takes.
_marrow()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local prog=${COMP_WORDS[0]} words
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        words=$("$prog" --help 2>/dev/null | sed -n 's/^  marrow \([a-z-][a-z-]*\).*/\1/p')
        COMPREPLY=($(compgen -W "$words --help" -- "$cur"))
        return
    fi
    local cmd=${COMP_WORDS[1]}
    case $prev in
        --out|--models) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --aa) COMPREPLY=($(compgen -W "fxaa msaa none" -- "$cur")); return ;;
        --frames|--fps|--fps-cap|--size|--budget|--memory|--time|--clip|--yaw|--pitch|--zoom|\
        --quit-after|--jobs|--shard|--filter|--timeout|--retries|--only|--map) return ;;
    esac
    if [[ $cur == -* ]]; then
        words=$("$prog" "$cmd" --help 2>/dev/null | grep -oE '(^|[][ ,|])--[a-z][a-z0-9-]*' | sed 's/^[][ ,|]//' | sort -u)
        COMPREPLY=($(compgen -W "$words --help" -- "$cur"))
        return
    fi
    local ext
    case $cmd in
        run) ext='@(lua)' ;;
        test) ext='@(lua)' ;;
        view|info|pose|convert) ext='@(md5mesh|md5anim|dae|gltf|glb|bvh|obj)' ;;
        *) return ;;
    esac
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X "!*.$ext" -- "$cur"))
}
complete -F _marrow marrow
