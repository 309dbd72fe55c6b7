function draw() undefined_function() end
