-- No processes from a script.
function update() os.execute("touch /tmp/marrow-sandbox-escaped") end
